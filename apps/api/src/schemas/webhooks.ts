import Type from 'typebox';
import { component } from './components.ts';
import { NetworkIdSchema, UuidSchema } from './entities.ts';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });

/** What every event notifier webhook carries about its event (`@mountain/webhook-sdk`: EventNotifierEventData). */
export const WebhookEventData = component(
  'WebhookEventData',
  Type.Object(
    {
      recordId: UuidSchema('The record id; the `webhook-id` of the event’s own webhook.'),
      subscription: Type.Object(
        { id: UuidSchema('Subscription id.'), name: Type.String(), projectId: Type.Integer() },
        { additionalProperties: false },
      ),
      network: Type.Object({ id: NetworkIdSchema, name: Type.String() }, { additionalProperties: false }),
      contractAddress: Type.String({
        description:
          'The contract that emitted the event, checksummed: the subscription’s `address` or one of its `addresses`.',
      }),
      event: Type.Object(
        {
          name: Type.String({ description: 'Which of the subscription’s events this is, e.g. `Transfer`.' }),
          signature: Type.String({ description: 'Canonical signature, e.g. `Transfer(address,address,uint256)`.' }),
        },
        { additionalProperties: false },
      ),
      decodedLog: Type.Record(Type.String(), Type.Unknown(), {
        description: 'The event’s arguments by name; integers of every size as decimal strings.',
      }),
      blockNumber: Type.Integer(),
      blockHash: Type.Union([Type.String(), Type.Null()], {
        description: 'The block that holds the event; `null` only for records stored before block hashes were kept.',
      }),
      blockTimestamp: DateTime('Timestamp of the block.'),
      transactionHash: Type.String(),
      transactionIndex: Type.Integer(),
      logIndex: Type.Integer(),
    },
    { additionalProperties: false },
  ),
);

const payload = (type: string, description: string, timestamp: string) =>
  Type.Object(
    { type: Type.Literal(type), timestamp: DateTime(timestamp), data: WebhookEventData },
    { additionalProperties: false, description },
  );

export const EventNotifierEventWebhook = component(
  'EventNotifierEvent',
  payload(
    'event_notifier.event',
    'An event a subscription found. `webhook-id` is the record id, the same on every retry and resend.',
    'When the event was recorded (the record’s `createdAt`).',
  ),
);

export const EventNotifierEventRemovedWebhook = component(
  'EventNotifierEventRemoved',
  payload(
    'event_notifier.event.removed',
    'A reorg took back the block of an event whose webhook was sent (or being sent): `data` is that event’s, unchanged. It has its own `webhook-id`, and is sent after the event’s webhook.',
    'When the platform saw the block leave the canonical chain.',
  ),
);
