import Type from 'typebox';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { updateScan } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { EventNotifierSubscription } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleSubscription } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/update-subscription-scan',
  operationId: 'update-subscription-scan',
  tag: 'Event Notifier',
  summary: 'Stop or resume a subscription’s scanning',
  description:
    '`scanEnabled: false` stops scanning: a scan already running finishes its range, and no block is read after ' +
    'it (records already found are still delivered). `scanEnabled: true` resumes at once from ' +
    '`lastScannedBlock + 1`, so no block is skipped. Answers the subscription as it now is.',
  auth: { roles: WRITERS },
  body: Type.Object(
    { id: RequestUuid('The subscription id.'), scanEnabled: Type.Boolean() },
    { additionalProperties: false },
  ),
  requestExample: { id: EXAMPLE.subscriptionId, scanEnabled: false },
  response: {
    status: 200,
    description: 'The subscription as it now is.',
    schema: Type.Object({ eventNotifierSubscription: EventNotifierSubscription }),
    example: { eventNotifierSubscription: { ...exampleSubscription, scanEnabled: false, nextScanAt: null } },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    const subscription = await updateScan(deps.db, settings, projectOf(principal), body.id, body.scanEnabled);
    return { eventNotifierSubscription: subscription };
  },
});
