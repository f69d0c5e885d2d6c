-- Each subscription chooses how many blocks must be on top of an event before it is recorded. NULL (subscriptions
-- created before this migration): the network's depth of the deployment (CONFIRMATIONS_<id>).
ALTER TABLE event_notifier_subscriptions
  ADD COLUMN confirmations integer CHECK (confirmations BETWEEN 0 AND 10000);
