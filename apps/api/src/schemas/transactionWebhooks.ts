import Type from 'typebox';
import { TRANSACTION_EVENT_TYPES } from '#api/webhooks/eventTypes.ts';
import { component } from './components.ts';
import { Transaction, UuidSchema } from './entities.ts';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });

/** What every transaction webhook carries (`@mountain/webhook-sdk`: TransactionEventData). */
export const TransactionEventData = component(
  'TransactionEventData',
  Type.Object(
    {
      transaction: Transaction,
      previousStatus: Type.String({
        description: 'The status before the change; for `transaction.finalized`, the status it became final in.',
      }),
      sequence: Type.Integer({
        minimum: 1,
        description:
          'Increases with every change of one transaction. Webhooks are not promised in order: keep the highest `sequence` processed per transaction id and drop a webhook with a lower one (it is stale).',
      }),
    },
    { additionalProperties: false },
  ),
);

const DESCRIPTIONS: Record<(typeof TRANSACTION_EVENT_TYPES)[number], string> = {
  'transaction.broadcasted': 'The transaction was sent to the network (`processing` → `broadcasted`).',
  'transaction.succeeded': 'Its receipt says success (`broadcasted` → `succeeded`).',
  'transaction.reverted': 'Its receipt, or the simulation before sending, says it reverted.',
  'transaction.failed': 'It failed before or after sending (`broadcast-failed`, `monitor-failed`).',
  'transaction.reorged':
    'The block of the mined transaction left the canonical chain: it is `broadcasted` again, block fields cleared, and settles again.',
  'transaction.finalized': 'Its block is final (`finalized` is now true).',
  'transaction.cancelled':
    "It was cancelled (cancel-transaction, or its deadline): before it was sent (`created` → `cancelled`), or its cancelling transfer was mined (`cancelling` → `cancelled`). A cancel the original wins ends as the original's outcome (`transaction.succeeded` or `transaction.reverted`).",
};

/** One component per transaction event type, each the same envelope with its own `type`. */
export const TRANSACTION_WEBHOOKS = TRANSACTION_EVENT_TYPES.map((type) => ({
  type,
  description: DESCRIPTIONS[type],
  schema: component(
    `TransactionEvent${type.split('.')[1]?.replace(/^./, (c) => c.toUpperCase())}`,
    Type.Object(
      {
        type: Type.Literal(type),
        timestamp: DateTime('When the change was made.'),
        data: TransactionEventData,
      },
      {
        additionalProperties: false,
        description: `${DESCRIPTIONS[type]} \`webhook-id\` is the message id, the same on every retry and replay.`,
      },
    ),
  ),
}));

export const EndpointDisabledWebhook = component(
  'EndpointDisabledEvent',
  Type.Object(
    {
      type: Type.Literal('endpoint.disabled'),
      timestamp: DateTime('When the endpoint was disabled.'),
      data: Type.Object(
        {
          endpoint: Type.Object(
            {
              id: UuidSchema('The endpoint disabled.'),
              url: Type.String(),
              disabledReason: Type.String(),
              disabledAt: DateTime('When it was disabled.'),
              failingSince: DateTime('Its first failed attempt since the last delivered one.'),
            },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    },
    {
      additionalProperties: false,
      description:
        'Another endpoint of the project was disabled: every attempt to it failed for `WEBHOOK_DISABLE_AFTER_HOURS`.',
    },
  ),
);

export const SubscriptionWebhookDisabledWebhook = component(
  'SubscriptionWebhookDisabledEvent',
  Type.Object(
    {
      type: Type.Literal('subscription.webhook_disabled'),
      timestamp: DateTime('When the subscription’s webhook was disabled.'),
      data: Type.Object(
        {
          subscription: Type.Object(
            {
              id: UuidSchema('The subscription whose own webhook was disabled.'),
              webhookURL: Type.String(),
              disabledReason: Type.String(),
              disabledAt: DateTime('When it was disabled.'),
              failingSince: DateTime('Its first failed attempt since the last delivered one.'),
            },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    },
    {
      additionalProperties: false,
      description:
        'A subscription’s own webhook (its `webhookURL`) was disabled: every attempt to it failed for `WEBHOOK_DISABLE_AFTER_HOURS`. Its scanning goes on; its records wait, failed, for a resend or a replay once the webhook is enabled again.',
    },
  ),
);
