-- Event records keep the hash of the block that holds them, so that a later look at the chain can tell whether
-- that block is still there. Records stored before this migration have none (NULL).
ALTER TABLE event_notifier_records ADD COLUMN block_hash varchar(66);
