// The event types come from the webhook SDK, which owns the one list: the payload types it publishes, the console's
// choices and these schemas cannot drift apart.
export {
  DISABLED_EVENT_TYPES,
  EVENT_NOTIFIER_EVENT_TYPES,
  TRANSACTION_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from '@mountain/webhook-sdk';

/** How long the previous secret still signs after a rotation, unless the rotation says: 24 hours (at most 7 days). */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
export const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;
