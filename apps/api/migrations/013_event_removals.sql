-- Event records follow the canonical chain.
-- * removed_at: the record's block left the canonical chain (a reorg); the record stays, marked removed.
-- * removal_of: a row that is the removal notice of another record (its webhook `event_notifier.event.removed`,
--   with the data of that record); it is delivered, retried and resent like a record, and listed with none.
-- * claimed_at: when a delivery attempt took the record (it is in flight for the lease after that), so that a
--   removal notice is sent only after its record's attempt has ended.
ALTER TABLE event_notifier_records
  ADD COLUMN removed_at timestamptz,
  ADD COLUMN removal_of uuid REFERENCES event_notifier_records (id) ON DELETE CASCADE,
  ADD COLUMN claimed_at timestamptz;

-- One live record per event and block: the same log in a block that replaced its own is a new record, and so is
-- the same log again after its block came back (a reorg undone).
DO $$
DECLARE key text;
BEGIN
  SELECT conname INTO key FROM pg_constraint
   WHERE conrelid = 'event_notifier_records'::regclass AND contype = 'u';
  EXECUTE format('ALTER TABLE event_notifier_records DROP CONSTRAINT %I', key);
END $$;
CREATE UNIQUE INDEX event_notifier_records_live_event ON event_notifier_records
  (subscription_id, transaction_hash, log_index, block_hash) WHERE removal_of IS NULL AND removed_at IS NULL;
CREATE UNIQUE INDEX event_notifier_records_one_removal ON event_notifier_records (removal_of)
  WHERE removal_of IS NOT NULL;

-- The hash of the last block of each range a subscription scanned above the finalized block (and of the newest
-- one at or below it): a later scan compares them with the chain to find where a reorg forked.
CREATE TABLE event_notifier_scan_checkpoints (
  subscription_id uuid NOT NULL REFERENCES event_notifier_subscriptions (id) ON DELETE CASCADE,
  block_number    bigint NOT NULL,
  block_hash      varchar(66) NOT NULL,
  PRIMARY KEY (subscription_id, block_number)
);

-- As in 007, and: a removed record is not delivered any more; a removal notice waits until its record's attempt
-- in flight (if any) has ended; every claim records when it was made.
CREATE OR REPLACE FUNCTION event_notifier_claim_due(subscription uuid, webhook_enabled boolean, batch integer, lease_ms bigint)
RETURNS SETOF event_notifier_records
LANGUAGE sql
SET enable_bitmapscan = off
SET enable_seqscan = off
SET enable_sort = off
AS $$
  WITH due AS (
    SELECT r.id FROM event_notifier_records r
     WHERE r.subscription_id = subscription AND r.status = 'scanned' AND r.next_attempt_at <= now()
       AND (webhook_enabled OR r.forced) AND r.removed_at IS NULL
       AND (r.removal_of IS NULL OR NOT EXISTS (
             SELECT 1 FROM event_notifier_records o
              WHERE o.id = r.removal_of AND o.claimed_at > now() - lease_ms * interval '1 millisecond'))
     ORDER BY r.next_attempt_at
     LIMIT batch
       FOR UPDATE OF r SKIP LOCKED)
  UPDATE event_notifier_records r
     SET next_attempt_at = now() + lease_ms * interval '1 millisecond', claimed_at = now()
    FROM due WHERE r.id = due.id
  RETURNING r.*
$$;
