import Type from 'typebox';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { rewindSubscription } from '#api/eventNotifier/subscriptions/rewindSubscription.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { EventNotifierSubscription } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleSubscription } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/rewind-subscription',
  operationId: 'rewind-subscription',
  tag: 'Event Notifier',
  summary: 'Scan a subscription again from an earlier block',
  description:
    'The next scan, queued at once, reads from `fromBlock` (below `initialBlockNumber` too, which then moves down ' +
    'to it) with what the subscription watches now. Events already recorded are not recorded twice, and their ' +
    'webhooks are not sent again; events not recorded before (a contract or an event added since, a filter ' +
    'widened) become new records and are delivered. With `redeliver: true`, the records already delivered or ' +
    'failed from `fromBlock` on are also sent again: to the subscription’s webhook under the same record id (the ' +
    'same `webhook-id`, with a new round of retries) and to the project’s endpoints that take ' +
    '`event_notifier.event` as new messages. While a scan is running, the rewind waits for it (`rewindFromBlock`) ' +
    'and the next scan starts with it. `fromBlock` past the next block to scan is refused: a rewind goes back only.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      id: RequestUuid('The subscription id.'),
      fromBlock: Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'The first block to scan again (at most the next block to scan).',
      }),
      redeliver: Type.Optional(
        Type.Boolean({
          description: 'Send the records already delivered (or failed) from `fromBlock` on again. Default false.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  requestExample: { id: EXAMPLE.subscriptionId, fromBlock: 1200, redeliver: false },
  response: {
    status: 200,
    description: 'The subscription as it now is, and how many records are sent again.',
    schema: Type.Object({
      eventNotifierSubscription: EventNotifierSubscription,
      redeliveredCount: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
        description:
          'Records queued for delivery again (0 without `redeliver`); `null` while the rewind waits for a running scan.',
      }),
    }),
    example: {
      eventNotifierSubscription: { ...exampleSubscription, lastScannedBlock: 1199, nextScanAt: EXAMPLE.timestamp },
      redeliveredCount: 0,
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    const { subscription, redeliveredCount } = await rewindSubscription(
      deps.db,
      settings,
      projectOf(principal),
      body.id,
      body.fromBlock,
      body.redeliver ?? false,
    );
    return { eventNotifierSubscription: subscription, redeliveredCount };
  },
});
