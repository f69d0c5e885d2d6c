/** The transaction events (a transaction's status change, its block leaving the chain, its finality). */
export const TRANSACTION_EVENT_TYPES = [
  'transaction.broadcasted',
  'transaction.succeeded',
  'transaction.reverted',
  'transaction.failed',
  'transaction.reorged',
  'transaction.finalized',
] as const;

/** The event notifier's two types, which an endpoint may take too (filtered by subscription). */
export const EVENT_NOTIFIER_EVENT_TYPES = ['event_notifier.event', 'event_notifier.event.removed'] as const;

/**
 * What the project's endpoints are told when a destination is disabled for failing: another endpoint
 * (`endpoint.disabled`), or a subscription's own webhook (`subscription.webhook_disabled`).
 */
export const DISABLED_EVENT_TYPES = ['endpoint.disabled', 'subscription.webhook_disabled'] as const;

/** Every event type a webhook endpoint may choose. */
export const WEBHOOK_EVENT_TYPES = [
  ...TRANSACTION_EVENT_TYPES,
  ...EVENT_NOTIFIER_EVENT_TYPES,
  ...DISABLED_EVENT_TYPES,
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** How long the previous secret still signs after a rotation, unless the rotation says: 24 hours (at most 7 days). */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
export const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;
