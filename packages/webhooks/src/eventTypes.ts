// The one list of webhook event types. The server's endpoint schemas (and so the OpenAPI document and the client's
// types), the console's choices and the payload types of events.ts all follow it: a new type is added here.

/**
 * The transaction events: a transaction's status change, its block leaving the chain, its finality.
 *
 * @example
 * ```ts
 * import { TRANSACTION_EVENT_TYPES } from '@mountain/webhook-sdk';
 *
 * const isTransactionEvent = (type: string) => (TRANSACTION_EVENT_TYPES as readonly string[]).includes(type);
 * ```
 */
export const TRANSACTION_EVENT_TYPES = [
  'transaction.broadcasted',
  'transaction.succeeded',
  'transaction.reverted',
  'transaction.failed',
  'transaction.reorged',
  'transaction.finalized',
  'transaction.cancelled',
] as const;

/**
 * The event notifier's two types, which a project's webhook endpoint may take too (filtered by subscription).
 *
 * @example
 * ```ts
 * import { EVENT_NOTIFIER_EVENT_TYPES } from '@mountain/webhook-sdk';
 *
 * const eventTypes = [...EVENT_NOTIFIER_EVENT_TYPES]; // an endpoint that takes every contract event and removal
 * ```
 */
export const EVENT_NOTIFIER_EVENT_TYPES = ['event_notifier.event', 'event_notifier.event.removed'] as const;

/**
 * What the project's endpoints are told when a destination is disabled for failing: another endpoint
 * (`endpoint.disabled`), or a subscription's own webhook (`subscription.webhook_disabled`).
 *
 * @example
 * ```ts
 * import { DISABLED_EVENT_TYPES } from '@mountain/webhook-sdk';
 *
 * await client.createWebhookEndpoint({ url: alertsUrl, eventTypes: [...DISABLED_EVENT_TYPES] }); // an on-call hook
 * ```
 */
export const DISABLED_EVENT_TYPES = ['endpoint.disabled', 'subscription.webhook_disabled'] as const;

/**
 * Every event type a project's webhook endpoint may choose (its `eventTypes`): the `type` of every payload in
 * `AnyWebhookEvent`.
 *
 * @example
 * ```ts
 * import { WEBHOOK_EVENT_TYPES } from '@mountain/webhook-sdk';
 *
 * await client.createWebhookEndpoint({ url, eventTypes: [...WEBHOOK_EVENT_TYPES] }); // every type there is
 * ```
 */
export const WEBHOOK_EVENT_TYPES = [
  ...TRANSACTION_EVENT_TYPES,
  ...EVENT_NOTIFIER_EVENT_TYPES,
  ...DISABLED_EVENT_TYPES,
] as const;

/**
 * One of {@link WEBHOOK_EVENT_TYPES}.
 *
 * @example
 * ```ts
 * import type { WebhookEventType } from '@mountain/webhook-sdk';
 *
 * const wanted: WebhookEventType[] = ['transaction.succeeded', 'transaction.failed'];
 * ```
 */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
