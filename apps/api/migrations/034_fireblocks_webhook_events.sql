-- The Fireblocks webhook events already applied (POST /webhooks/fireblocks), so that one delivered again, by
-- Fireblocks' retries or by anyone replaying a captured body, changes nothing. An event is named by the SHA-256 of
-- its transaction's id, external id, update time (lastUpdated), status, sub-status and hash. Rows are pruned once
-- an event that old would be refused by its timestamp anyway (wallets/fireblocks/webhookEvents.ts).
CREATE TABLE fireblocks_webhook_events (
  event_key   bytea PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fireblocks_webhook_events_received_at ON fireblocks_webhook_events (received_at);
