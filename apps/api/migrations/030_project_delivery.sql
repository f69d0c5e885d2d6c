-- An endpoint's messages are sent by its project's delivery job (`webhook:deliver-project`), which delivers the
-- project's endpoints side by side: a message to 1,000 endpoints queues one job, not 1,000, and an endpoint that
-- never answers holds one of the job's lanes instead of a project slot (see webhooks/delivery/deliverProject.ts).

-- Each delivery names its endpoint's project, so the project's job finds its due deliveries through one index, in
-- time order, whatever the number of endpoints or of other projects' deliveries.
ALTER TABLE webhook_deliveries ADD COLUMN project_id integer;
UPDATE webhook_deliveries d SET project_id = e.project_id FROM webhook_endpoints e WHERE e.id = d.endpoint_id;
ALTER TABLE webhook_deliveries ALTER COLUMN project_id SET NOT NULL;

-- Queues the delivery job of a project once per database transaction (the job key makes later ones moot).
CREATE FUNCTION webhook_queue_project(project integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  setting text := 'mountain.webhook_project_queued_' || project;
BEGIN
  IF coalesce(current_setting(setting, true), '') = '1' THEN RETURN; END IF;
  PERFORM set_config(setting, '1', true);
  PERFORM graphile_worker.add_job('webhook:deliver-project', json_build_object('projectId', project),
                                  job_key => 'webhook:deliver-project:' || project, max_attempts => 5);
END $$;

CREATE OR REPLACE FUNCTION webhook_queue_endpoint(endpoint uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_queue_project(project_id) FROM webhook_endpoints WHERE id = endpoint;
END $$;

-- As in migration 021, with the project's job queued once for all its endpoints.
CREATE OR REPLACE FUNCTION webhook_write_message(project integer, kind text, subscription uuid,
                                                 message webhook_messages)
RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  message_id uuid;
  endpoint record;
  queue boolean := false;
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
    INSERT INTO webhook_deliveries (endpoint_id, message_id, project_id, status, next_attempt_at)
    VALUES (endpoint.id, message_id, project, CASE WHEN endpoint.enabled THEN 'pending' ELSE 'failed' END,
            CASE WHEN endpoint.enabled THEN now() END);
    queue := queue OR endpoint.enabled;
  END LOOP;
  IF queue THEN PERFORM webhook_queue_project(project); END IF;
  RETURN message_id;
END $$;

-- A project's due deliveries in time order, for its job to find its endpoints with work (deliverProject.ts).
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (project_id, next_attempt_at) WHERE status = 'pending';
