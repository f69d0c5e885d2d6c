-- delete-subscription removes the copies of a subscription's records that the project's endpoints receive
-- (webhook_messages of event_notifier.* types), with their deliveries and attempts: found by this index.
CREATE INDEX webhook_messages_subscription ON webhook_messages (subscription_id) WHERE subscription_id IS NOT NULL;
