import Type from 'typebox';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { updateSubscription } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { EventNotifierSubscription } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleSubscription } from '#api/schemas/examples.ts';
import {
  AddressesField,
  ConditionsField,
  FiltersField,
  FormattedAbiEventsField,
  RequestUuid,
} from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/update-subscription',
  operationId: 'update-subscription',
  tag: 'Event Notifier',
  summary: 'Change a subscription’s name, cadence, depth or what it watches',
  description:
    'Each field given replaces the one stored; the others stay. `addresses`, `formattedAbiEvents`, `filters` and ' +
    '`conditions` are checked together with `address` and `formattedAbiEvent` (which do not change), as on creation. ' +
    'A change applies from the next scan: a scan already running reads its blocks as it started, and every block ' +
    'after `lastScannedBlock` is read with the change. Blocks already scanned are not read again (rewind-subscription ' +
    'does that), and records already stored stay. A shorter `scanInterval` brings the next scan forward; ' +
    '`confirmations` applies to the blocks not yet scanned.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      id: RequestUuid('The subscription id.'),
      subscriptionName: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'A name for you.' })),
      scanInterval: Type.Optional(
        Type.Integer({ minimum: 5, maximum: 86_400, description: 'Seconds between scans (5 to 86400).' }),
      ),
      confirmations: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 10_000,
          description: 'Blocks that must be on top of an event’s block before it is recorded (0 to 10000).',
        }),
      ),
      addresses: Type.Optional(AddressesField),
      formattedAbiEvents: Type.Optional(FormattedAbiEventsField),
      filters: Type.Optional(FiltersField),
      conditions: Type.Optional(ConditionsField),
    },
    { additionalProperties: false },
  ),
  requestExample: {
    id: EXAMPLE.subscriptionId,
    subscriptionName: 'Deposits',
    filters: { to: [EXAMPLE.walletTestnet] },
    conditions: [{ field: 'value', op: 'gte', value: '1000000000000000000' }],
  },
  response: {
    status: 200,
    description: 'The subscription as it now is.',
    schema: Type.Object({ eventNotifierSubscription: EventNotifierSubscription }),
    example: {
      eventNotifierSubscription: {
        ...exampleSubscription,
        subscriptionName: 'Deposits',
        filters: { to: [EXAMPLE.walletTestnet] },
        conditions: [{ field: 'value', op: 'gte', value: '1000000000000000000' }],
      },
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    const { id, ...change } = body;
    const subscription = await updateSubscription(deps.db, settings, projectOf(principal), id, change);
    return { eventNotifierSubscription: subscription };
  },
});
