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
  network: { id: number; name: string };
  /** The contract that emitted the event (0x-prefixed address). */
  contractAddress: string;
  /** The event's name and its canonical signature, e.g. `Transfer(address,address,uint256)`. */
  event: { name: string; signature: string };
  /** The decoded event arguments by name; big integers are decimal strings, so no precision is lost. */
  decodedLog: Record<string, unknown>;
  blockNumber: number;
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
 * Every webhook payload Mountain sends, discriminated by `type`. Today there is one type; switch on `type` so new
 * types added later are ignored safely.
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
 *   }
 * }
 * ```
 */
export type WebhookEvent = EventNotifierEvent;
