-- A job is defined once, by its defineJob object. SQL that queues one calls the job's queue function, generated
-- from the definition (jobs.generated.sql, applied after the numbered migrations on every start: jobs/jobsSql.ts),
-- instead of naming the job, its key and its attempts itself. The project's delivery job, queued by the triggers
-- that write webhook messages (migrations 021 and 030: webhook_write_message, webhook_queue_endpoint), is queued
-- here, once per database transaction as before.
CREATE OR REPLACE FUNCTION webhook_queue_project(project integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  setting text := 'mountain.webhook_project_queued_' || project;
BEGIN
  IF coalesce(current_setting(setting, true), '') = '1' THEN RETURN; END IF;
  PERFORM set_config(setting, '1', true);
  PERFORM queue_job_webhook_deliver_project(project);
END $$;
