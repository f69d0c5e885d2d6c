-- A live record is unique per log: its block's hash and its index in that block (a log index is unique within a
-- block, so the transaction hash the key also held only widened every insert). Records stored before block hashes
-- were kept are looked up by transaction and log index, in an index of their own that new records never enter.
CREATE UNIQUE INDEX event_notifier_records_live_log ON event_notifier_records (subscription_id, block_hash, log_index)
  WHERE removal_of IS NULL AND removed_at IS NULL;
DROP INDEX event_notifier_records_live_event;
CREATE INDEX event_notifier_records_unhashed ON event_notifier_records (subscription_id, transaction_hash, log_index)
  WHERE block_hash IS NULL;
