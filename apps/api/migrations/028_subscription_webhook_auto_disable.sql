-- Auto-disable of a subscription's own webhook, as of webhook endpoints: the first failed attempt since the last
-- delivered one, and why and when the platform disabled the webhook after WEBHOOK_DISABLE_AFTER_HOURS of failures.
ALTER TABLE event_notifier_subscriptions
  ADD COLUMN webhook_failing_since timestamptz,
  ADD COLUMN webhook_disabled_reason text,
  ADD COLUMN webhook_disabled_at timestamptz;
