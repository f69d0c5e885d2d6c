-- Set while a scan with more than one block range to read (a backfill) runs, from when the first such scan began:
-- the subscription's webhooks wait until its backfill is stored, for at most the deployment's hold
-- (WEBHOOK_BACKFILL_HOLD_MS). Cleared when the scan ends.
ALTER TABLE event_notifier_subscriptions ADD COLUMN backfill_started_at timestamptz;
