-- A subscription's webhookSecret rotated with a grace period: the previous secret (encrypted like the current one,
-- context: the subscription id) signs every webhook beside the new one until `previous_webhook_secret_expires_at`.
ALTER TABLE event_notifier_subscriptions
  ADD COLUMN previous_webhook_secret bytea,
  ADD COLUMN previous_webhook_secret_expires_at timestamptz;
