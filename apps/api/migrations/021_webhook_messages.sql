-- Webhook messages (DESIGN §7): one row per event a project's endpoints take, written by triggers in the same
-- database transaction as the change that causes it (an outbox): a change that rolls back leaves no message, and a
-- committed one always has its message. The message id is the `webhook-id`, the same on every attempt and replay.
CREATE TABLE webhook_messages (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id      integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  event_type      text NOT NULL,
  -- transaction.*: the transaction's row as the change left it, the status it left, and the order of its changes.
  transaction_id  uuid,
  snapshot        jsonb,
  previous_status text,
  sequence        bigint,
  -- event_notifier.*: the record (its payload is built from it, as for the subscription's own webhook).
  record_id       uuid,
  subscription_id uuid,
  -- Any other type (endpoint.disabled): the payload's data as it is.
  data            jsonb,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_messages_project_time ON webhook_messages (project_id, created_at DESC, id DESC);
CREATE INDEX webhook_messages_created ON webhook_messages (created_at);

-- Increases with every change of a transaction (changes of one row are ordered by its row lock).
CREATE SEQUENCE webhook_message_sequence;

-- One delivery of a message to one endpoint: pending until delivered, or failed once its retries ran out (or while
-- the endpoint is disabled), kept for a replay.
CREATE TABLE webhook_deliveries (
  endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  message_id      uuid NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  -- Failures since the delivery was (re)queued; retries count against it.
  round_failures  integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (endpoint_id, message_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);

-- Queues the delivery job of an endpoint once per database transaction (the job key makes later ones moot).
CREATE FUNCTION webhook_queue_endpoint(endpoint uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  setting text := 'mountain.webhook_queued_' || replace(endpoint::text, '-', '');
BEGIN
  IF coalesce(current_setting(setting, true), '') = '1' THEN RETURN; END IF;
  PERFORM set_config(setting, '1', true);
  PERFORM graphile_worker.add_job('webhook:deliver', json_build_object('endpointId', endpoint),
                                  job_key => 'webhook:deliver:' || endpoint, max_attempts => 5);
END $$;

-- Writes a message of `kind` for the project's endpoints that take it (matching `subscription` when given), with
-- a delivery per endpoint: pending for enabled ones (their job queued), failed for disabled ones (kept for a
-- replay). Returns the message id, or NULL when no endpoint takes the type.
CREATE FUNCTION webhook_write_message(project integer, kind text, subscription uuid, message webhook_messages)
RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  message_id uuid;
  endpoint record;
BEGIN
  FOR endpoint IN
    SELECT id, enabled FROM webhook_endpoints
     WHERE project_id = project AND event_types @> ARRAY[kind]
       AND (subscription IS NULL OR subscription_ids IS NULL OR subscription = ANY (subscription_ids))
  LOOP
    IF message_id IS NULL THEN
      INSERT INTO webhook_messages (project_id, event_type, transaction_id, snapshot, previous_status, sequence,
                                    record_id, subscription_id, data)
      VALUES (project, kind, message.transaction_id, message.snapshot, message.previous_status, message.sequence,
              message.record_id, message.subscription_id, message.data)
      RETURNING id INTO message_id;
    END IF;
    INSERT INTO webhook_deliveries (endpoint_id, message_id, status, next_attempt_at)
    VALUES (endpoint.id, message_id, CASE WHEN endpoint.enabled THEN 'pending' ELSE 'failed' END,
            CASE WHEN endpoint.enabled THEN now() END);
    IF endpoint.enabled THEN PERFORM webhook_queue_endpoint(endpoint.id); END IF;
  END LOOP;
  RETURN message_id;
END $$;

-- The event of a transaction's change, if it is one: a status change, or its block becoming final.
CREATE FUNCTION webhook_transaction_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text;
  message webhook_messages;
BEGIN
  IF OLD.status IS DISTINCT FROM NEW.status THEN
    kind := CASE
      WHEN NEW.status = 'broadcasted' AND OLD.status IN ('succeeded', 'reverted') THEN 'transaction.reorged'
      WHEN NEW.status = 'broadcasted' THEN 'transaction.broadcasted'
      WHEN NEW.status = 'succeeded' THEN 'transaction.succeeded'
      WHEN NEW.status = 'reverted' THEN 'transaction.reverted'
      WHEN NEW.status IN ('broadcast-failed', 'monitor-failed') THEN 'transaction.failed'
    END;
  ELSIF OLD.finalized_at IS NULL AND NEW.finalized_at IS NOT NULL THEN
    kind := 'transaction.finalized';
  END IF;
  IF kind IS NULL THEN RETURN NULL; END IF;
  message.transaction_id := NEW.id;
  message.snapshot := to_jsonb(NEW) - 'raw_transaction' - 'previous_hashes';
  message.previous_status := OLD.status;
  message.sequence := nextval('webhook_message_sequence');
  PERFORM webhook_write_message(NEW.project_id, kind, NULL, message);
  -- A change that is both (a receipt of a block already final): its finality is an event of its own.
  IF OLD.status IS DISTINCT FROM NEW.status AND OLD.finalized_at IS NULL AND NEW.finalized_at IS NOT NULL THEN
    message.sequence := nextval('webhook_message_sequence');
    message.previous_status := NEW.status;
    PERFORM webhook_write_message(NEW.project_id, 'transaction.finalized', NULL, message);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER transactions_webhook_event
  AFTER UPDATE OF status, finalized_at ON transactions
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR (OLD.finalized_at IS NULL AND NEW.finalized_at IS NOT NULL))
  EXECUTE FUNCTION webhook_transaction_event();

-- The event notifier's records, for the endpoints that take them (filtered by subscription).
CREATE FUNCTION webhook_record_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row record;
  message webhook_messages;
BEGIN
  -- Most deployments route no event to endpoints: one index look, and nothing more.
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints
                  WHERE event_types && ARRAY['event_notifier.event', 'event_notifier.event.removed']) THEN
    RETURN NULL;
  END IF;
  FOR row IN
    SELECT n.id, n.removal_of, n.subscription_id, s.project_id
      FROM new_records n JOIN event_notifier_subscriptions s ON s.id = n.subscription_id
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.project_id = s.project_id)
     ORDER BY n.block_number, n.log_index
  LOOP
    message.record_id := row.id;
    message.subscription_id := row.subscription_id;
    PERFORM webhook_write_message(
      row.project_id,
      CASE WHEN row.removal_of IS NULL THEN 'event_notifier.event' ELSE 'event_notifier.event.removed' END,
      row.subscription_id,
      message);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER event_notifier_records_webhook_events
  AFTER INSERT ON event_notifier_records
  REFERENCING NEW TABLE AS new_records
  FOR EACH STATEMENT
  EXECUTE FUNCTION webhook_record_events();

-- The attempt log: every attempt of every webhook, an endpoint's or a subscription's. Kept
-- WEBHOOK_LOG_RETENTION_DAYS, purged by `webhook:purge-log`.
CREATE TABLE webhook_attempts (
  id              bigserial PRIMARY KEY,
  project_id      integer NOT NULL,
  -- The `webhook-id`: a message id, or for a subscription's own webhook the record id.
  message_id      uuid NOT NULL,
  endpoint_id     uuid,
  subscription_id uuid,
  event_type      text NOT NULL,
  url             text NOT NULL,
  attempted_at    timestamptz NOT NULL DEFAULT now(),
  -- delivered (2xx), http_error, timeout, connection_error, refused (by the URL policy).
  outcome         text NOT NULL,
  http_status     integer,
  duration_ms     integer NOT NULL,
  -- The first 1 KB of the answer's body, or what went wrong.
  response        text,
  CHECK (endpoint_id IS NOT NULL OR subscription_id IS NOT NULL)
);
CREATE INDEX webhook_attempts_project ON webhook_attempts (project_id, attempted_at DESC, id DESC);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, attempted_at DESC, id DESC)
  WHERE endpoint_id IS NOT NULL;
CREATE INDEX webhook_attempts_subscription ON webhook_attempts (subscription_id, attempted_at DESC, id DESC)
  WHERE subscription_id IS NOT NULL;
CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id);
-- The purge deletes the oldest attempts first.
CREATE INDEX webhook_attempts_time ON webhook_attempts (attempted_at);
