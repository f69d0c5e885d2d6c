// The payloads Mountain sends, discriminated by `type`: what verify() and the handlers return. payloads.test.ts holds
// them to the server's webhook schemas (the OpenAPI document's, generated into generated/payloads.ts).
import type { components } from './generated/payloads.ts';

/** The id of a network the platform runs on (the OpenAPI document's `NetworkId`). */
type NetworkId = components['schemas']['NetworkId'];

/**
 * The `data` of an {@link EventNotifierEvent}: one decoded contract event (log) found by a subscription.
 * Records are unique per (subscription, transaction hash, log index).
 *
 * @example
 * ```ts
 * import type { EventNotifierEventData } from '@mountain/webhook-sdk';
 *
 * function describe(data: EventNotifierEventData): string {
 *   return `${data.event.name} in block ${data.blockNumber} (tx ${data.transactionHash}, log ${data.logIndex})`;
 * }
 * ```
 */
export interface EventNotifierEventData {
  /** The record's id (a UUID); also what a resend of this record delivers again. */
  recordId: string;
  /** The subscription that found the event. */
  subscription: { id: string; name: string; projectId: number };
  network: { id: NetworkId; name: string };
  /** The contract that emitted the event (0x-prefixed address). */
  contractAddress: string;
  /** The event's name and its canonical signature, e.g. `Transfer(address,address,uint256)`. */
  event: { name: string; signature: string };
  /** The decoded event arguments by name; big integers are decimal strings, so no precision is lost. */
  decodedLog: Record<string, unknown>;
  blockNumber: number;
  /**
   * Hash of the block holding the event (0x-prefixed, 32 bytes): the block a reorg would replace. `null` only for
   * records stored before block hashes were kept.
   */
  blockHash: string | null;
  /** ISO 8601 time of the block. */
  blockTimestamp: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
}

/**
 * The payload of an event notifier webhook: what {@link verify} returns after checking the signature.
 *
 * @example
 * ```ts
 * import type { EventNotifierEvent } from '@mountain/webhook-sdk';
 *
 * function onTransfer(event: EventNotifierEvent): void {
 *   const { from, to, value } = event.data.decodedLog as { from: string; to: string; value: string };
 *   console.log(`${from} -> ${to}: ${BigInt(value)}`);
 * }
 * ```
 */
export interface EventNotifierEvent {
  type: 'event_notifier.event';
  /** ISO 8601 time the webhook was created. */
  timestamp: string;
  data: EventNotifierEventData;
}

/**
 * A reorg took back the block of an event you were sent (or were being sent): the chain no longer holds it. `data`
 * is the data of that event (the same `recordId`); undo what you did on it. It has its own `webhook-id`, and is
 * sent after the event's own webhook. An event removed before any delivery is never sent at all.
 *
 * @example
 * ```ts
 * import type { EventNotifierEventRemoved } from '@mountain/webhook-sdk';
 *
 * function undo(event: EventNotifierEventRemoved): void {
 *   console.log(`event ${event.data.recordId} left the chain (block ${event.data.blockHash})`);
 * }
 * ```
 */
export interface EventNotifierEventRemoved {
  type: 'event_notifier.event.removed';
  /** ISO 8601 time the removal was noticed. */
  timestamp: string;
  data: EventNotifierEventData;
}

/**
 * A transaction as `get-transaction` answers it, at the moment of the change a transaction webhook tells.
 *
 * @example
 * ```ts
 * import type { TransactionEventTransaction } from '@mountain/webhook-sdk';
 *
 * const mined = (t: TransactionEventTransaction) => t.blockNumber !== null;
 * ```
 */
export interface TransactionEventTransaction {
  id: string;
  projectId: number;
  contractActivatedFunctionId: number;
  mSystemWalletId: number;
  networkId: NetworkId;
  functionArgs: string[];
  /** The value it sends, in wei, as a decimal string ("0" for none). */
  value: string;
  /** The fine-grained status the change left the transaction in. */
  status:
    | 'created'
    | 'processing'
    | 'broadcasted'
    | 'succeeded'
    | 'broadcast-failed'
    | 'monitor-failed'
    | 'reverted'
    | 'cancelling'
    | 'cancelled';
  transactionHash: string | null;
  nonce: number | null;
  gasPrice: string | null;
  gasLimit: string | null;
  gasUsed: string | null;
  blockNumber: number | null;
  /** Blocks on top of the including block when the webhook was sent; `null` until mined. */
  confirmations: number | null;
  finalized: boolean;
  errorMessage: string | null;
  idempotencyKey: string;
  /** The transaction this one waits for (afterTransactionId), or null. */
  afterTransactionId: string | null;
  /** Its deadline (timeoutSeconds), ISO 8601, or null. */
  expiresAt: string | null;
  /** Its ordering key (the project's transactions with one key go through one wallet, in order), or null. */
  orderingKey: string | null;
  custody: { provider: 'fireblocks'; id: string | null; status: string | null; subStatus: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * The `data` of a transaction webhook. Webhooks are not promised in order: keep the highest `sequence` you have
 * processed per transaction id and drop a webhook whose `sequence` is lower (it is stale).
 *
 * @example
 * ```ts
 * import type { TransactionEventData } from '@mountain/webhook-sdk';
 *
 * const latest = new Map<string, number>();
 * function isStale({ transaction, sequence }: TransactionEventData): boolean {
 *   if ((latest.get(transaction.id) ?? -1) >= sequence) return true;
 *   latest.set(transaction.id, sequence);
 *   return false;
 * }
 * ```
 */
export interface TransactionEventData {
  transaction: TransactionEventTransaction;
  /** The status before the change (for `transaction.finalized`, the status it was final in). */
  previousStatus: string;
  /** Increases with every change of one transaction: a lower one than you have seen is stale. */
  sequence: number;
}

/**
 * A transaction's status change, its block leaving the chain, or its finality, sent to the project's webhook
 * endpoints that take the type.
 *
 * @example
 * ```ts
 * import type { TransactionEvent } from '@mountain/webhook-sdk';
 *
 * function onTransaction(event: TransactionEvent): void {
 *   console.log(event.type, event.data.transaction.id, event.data.transaction.status);
 * }
 * ```
 */
export interface TransactionEvent {
  type:
    | 'transaction.broadcasted'
    | 'transaction.succeeded'
    | 'transaction.reverted'
    | 'transaction.failed'
    | 'transaction.reorged'
    | 'transaction.finalized'
    | 'transaction.cancelled';
  /** ISO 8601 time of the change. */
  timestamp: string;
  data: TransactionEventData;
}

/**
 * Another endpoint of the project was disabled after its attempts failed for too long.
 *
 * @example
 * ```ts
 * import type { EndpointDisabledEvent } from '@mountain/webhook-sdk';
 *
 * const alert = ({ data }: EndpointDisabledEvent) => console.warn(`${data.endpoint.url}: ${data.endpoint.disabledReason}`);
 * ```
 */
export interface EndpointDisabledEvent {
  type: 'endpoint.disabled';
  /** ISO 8601 time the endpoint was disabled. */
  timestamp: string;
  data: { endpoint: { id: string; url: string; disabledReason: string; disabledAt: string; failingSince: string } };
}

/**
 * A subscription's own webhook (its `webhookURL`) was disabled after its attempts failed for too long.
 *
 * @example
 * ```ts
 * import type { SubscriptionWebhookDisabledEvent } from '@mountain/webhook-sdk';
 *
 * const alert = ({ data }: SubscriptionWebhookDisabledEvent) =>
 *   console.warn(`${data.subscription.webhookURL}: ${data.subscription.disabledReason}`);
 * ```
 */
export interface SubscriptionWebhookDisabledEvent {
  type: 'subscription.webhook_disabled';
  /** ISO 8601 time the subscription's webhook was disabled. */
  timestamp: string;
  data: {
    subscription: { id: string; webhookURL: string; disabledReason: string; disabledAt: string; failingSince: string };
  };
}

/**
 * Every webhook payload Mountain sends, discriminated by `type`; switch on `type` so types added later are
 * ignored safely.
 *
 * @example
 * ```ts
 * import type { WebhookEvent } from '@mountain/webhook-sdk';
 *
 * function handle(event: WebhookEvent): void {
 *   switch (event.type) {
 *     case 'event_notifier.event':
 *       console.log(event.data.event.name, event.data.decodedLog);
 *       break;
 *     case 'event_notifier.event.removed':
 *       console.log('taken back by a reorg:', event.data.recordId);
 *       break;
 *   }
 * }
 * ```
 */
export type WebhookEvent = EventNotifierEvent | EventNotifierEventRemoved;

/**
 * Every payload a project's webhook endpoint may receive: the event notifier's, the transaction events,
 * `endpoint.disabled` and `subscription.webhook_disabled`. Pass it as the type parameter of {@link verify} or a handler for an endpoint's receiver.
 *
 * @example
 * ```ts
 * import { type AnyWebhookEvent, verify } from '@mountain/webhook-sdk';
 *
 * const event = await verify<AnyWebhookEvent>(rawBody, headers, secret);
 * if (event.type === 'transaction.succeeded') console.log(event.data.transaction.transactionHash);
 * ```
 */
export type AnyWebhookEvent =
  | WebhookEvent
  | TransactionEvent
  | EndpointDisabledEvent
  | SubscriptionWebhookDisabledEvent;
