import Type from 'typebox';
import { assertWebhookUrlAllowed } from '#api/delivery/webhookUrlPolicy.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { createSubscription } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { checkWatch } from '#api/eventNotifier/watch.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { EventNotifierSubscription, NetworkIdSchema } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleSubscription } from '#api/schemas/examples.ts';
import {
  AbiString,
  AddressesField,
  ConditionsField,
  FiltersField,
  FormattedAbiEventsField,
  RequestAddress,
  WebhookMaxRetries,
  WebhookUrl,
} from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/create-subscription',
  operationId: 'create-subscription',
  tag: 'Event Notifier',
  summary: 'Subscribe to a contract event',
  description:
    'Creates a subscription that scans an event of a contract (and optionally more events, `formattedAbiEvents`, of more contracts, `addresses`) every `scanInterval` seconds from `initialBlockNumber`, stores each decoded event that passes its `filters` and `conditions` as a record, and delivers it to `webhookURL` signed with the subscription’s secret. The answer is the only one that shows the full `webhookSecret`: store it.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      subscriptionName: Type.String({ minLength: 1, maxLength: 256, description: 'A name for you.' }),
      networkId: NetworkIdSchema,
      address: RequestAddress,
      formattedAbiEvent: AbiString('Human-readable ABI of the event, e.g. `event Transfer(address indexed from, …)`.'),
      addresses: Type.Optional(AddressesField),
      formattedAbiEvents: Type.Optional(FormattedAbiEventsField),
      filters: Type.Optional(FiltersField),
      conditions: Type.Optional(ConditionsField),
      initialBlockNumber: Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'First block to scan (at most 2^53 - 1).',
      }),
      scanInterval: Type.Integer({ minimum: 5, maximum: 86_400, description: 'Seconds between scans (5 to 86400).' }),
      confirmations: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 10_000,
          description:
            'Blocks that must be on top of an event’s block before it is recorded (0 to 10000). Default: the network’s depth on this deployment (`CONFIRMATIONS_<networkId>`; 12 on Ethereum, 0 on 1337). 0 records events as soon as they are mined.',
        }),
      ),
      webhookURL: Type.Optional(WebhookUrl),
      webhookMaxRetries: Type.Optional(WebhookMaxRetries),
    },
    { additionalProperties: false },
  ),
  requestExample: {
    subscriptionName: 'Token transfers',
    networkId: 1337,
    address: EXAMPLE.contractAddress,
    formattedAbiEvent: EXAMPLE.transferEvent,
    initialBlockNumber: 0,
    scanInterval: 5,
    webhookURL: 'https://example.com/webhooks/mountain',
    webhookMaxRetries: 5,
  },
  response: {
    status: 201,
    description: 'The subscription, with its webhook secret in full (shown only here).',
    schema: Type.Object({ eventNotifierSubscription: EventNotifierSubscription }),
    example: {
      eventNotifierSubscription: {
        ...exampleSubscription,
        webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        scanStatus: 'idle',
        lastScannedBlock: null,
        lastScannedAt: null,
        nextScanAt: EXAMPLE.timestamp,
      },
    },
  },
  errors: ['WEBHOOK_URL_REFUSED', 'SUBSCRIPTION_LIMIT_REACHED'],
  async handler({ body, principal, deps }) {
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    const watch = checkWatch(body, { maxAddresses: settings.maxAddressesPerSubscription });
    if (body.webhookURL !== undefined) await assertWebhookUrlAllowed(body.webhookURL, deps.delivery);
    const subscription = await createSubscription(deps.db, deps.masterKey, settings, projectOf(principal), {
      ...body,
      watch,
    });
    return { eventNotifierSubscription: subscription };
  },
});
