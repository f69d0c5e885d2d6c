-- The node's finalized block as of a subscription's last look for reorgs. The next look compares the records and
-- checkpoints above it, so that a block replaced by a reorg and made final before that look is still compared.
-- NULL (subscriptions created before this migration, or never looked at): the current finalized block.
ALTER TABLE event_notifier_subscriptions
  ADD COLUMN reorg_floor_block bigint;
