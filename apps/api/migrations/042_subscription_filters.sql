-- A subscription watches several events of several contracts, with filters on indexed arguments (pushed into
-- eth_getLogs' topics) and conditions on decoded values; update-subscription changes them, rewind-subscription
-- scans again from an earlier block.
ALTER TABLE event_notifier_subscriptions
  -- Beside `address` and `formatted_abi_event` (which stay the first of each): the others.
  ADD COLUMN addresses text[] NOT NULL DEFAULT '{}',
  ADD COLUMN formatted_abi_events text[] NOT NULL DEFAULT '{}',
  -- {"<indexed parameter>": ["<value>", …]} and [{"field", "op", "value"}], as the API accepted them.
  ADD COLUMN filters jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN conditions jsonb NOT NULL DEFAULT '[]',
  -- A rewind asked while a scan ran: the next scan starts by applying it (under the scan's lock).
  ADD COLUMN rewind_from_block bigint CHECK (rewind_from_block >= 0),
  ADD COLUMN rewind_redeliver boolean NOT NULL DEFAULT false;

-- Which contract emitted a record and which event it is; NULL: the subscription's `address`, its
-- `formatted_abi_event` (every record stored before several were possible, and most records after).
ALTER TABLE event_notifier_records
  ADD COLUMN contract_address text,
  ADD COLUMN event_signature text;

-- A rewind with `redeliver`: the project's endpoints receive the subscription's live records from `from_block` on
-- again (new messages, as the insert trigger writes them).
CREATE FUNCTION webhook_redeliver_records(subscription uuid, from_block bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  row record;
  message webhook_messages;
  written integer := 0;
BEGIN
  FOR row IN
    SELECT r.id, s.project_id
      FROM event_notifier_records r JOIN event_notifier_subscriptions s ON s.id = r.subscription_id
     WHERE r.subscription_id = subscription AND r.block_number >= from_block
       AND r.removal_of IS NULL AND r.removed_at IS NULL
       AND EXISTS (SELECT 1 FROM webhook_endpoints e
                    WHERE e.project_id = s.project_id AND e.event_types @> ARRAY['event_notifier.event'])
     ORDER BY r.block_number, r.log_index
  LOOP
    message.record_id := row.id;
    message.subscription_id := subscription;
    IF webhook_write_message(row.project_id, 'event_notifier.event', subscription, message) IS NOT NULL THEN
      written := written + 1;
    END IF;
  END LOOP;
  RETURN written;
END $$;
