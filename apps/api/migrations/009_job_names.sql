-- Job names follow one style, `<feature>:<action>`, and every job key is `<name>:<subject>`:
--   transaction-send → transaction:send, transaction-monitor → transaction:monitor,
--   eventNotifier.scan → event-notifier:scan, eventNotifier.deliver → event-notifier:deliver,
--   eventNotifier.sweep → jobs:sweep (the sweep now recovers every kind of job).
-- Jobs queued under the old names are moved to the new ones, so that nothing queued before an upgrade is stranded.
-- On a new database the job queue's schema does not exist yet (it is installed after these migrations): nothing
-- to move.
DO $$
DECLARE
  rename record;
  old_id int;
  new_id int;
BEGIN
  IF to_regclass('graphile_worker._private_tasks') IS NULL THEN
    RETURN;
  END IF;
  FOR rename IN
    SELECT * FROM (VALUES
      ('transaction-send', 'transaction:send'),
      ('transaction-monitor', 'transaction:monitor'),
      ('eventNotifier.scan', 'event-notifier:scan'),
      ('eventNotifier.deliver', 'event-notifier:deliver'),
      ('eventNotifier.sweep', 'jobs:sweep')
    ) AS v(old_name, new_name)
  LOOP
    SELECT id INTO old_id FROM graphile_worker._private_tasks WHERE identifier = rename.old_name;
    CONTINUE WHEN old_id IS NULL;
    SELECT id INTO new_id FROM graphile_worker._private_tasks WHERE identifier = rename.new_name;
    IF new_id IS NULL THEN
      UPDATE graphile_worker._private_tasks SET identifier = rename.new_name WHERE id = old_id;
    ELSE
      UPDATE graphile_worker._private_jobs SET task_id = new_id WHERE task_id = old_id;
    END IF;
  END LOOP;
  -- Keys: a key already taken under the new form keeps that job; the old one is dropped (the same work).
  DELETE FROM graphile_worker._private_jobs old
   WHERE (old.key LIKE 'transaction-send:%' OR old.key LIKE 'transaction-monitor:%' OR old.key = 'event-notifier:sweep')
     AND EXISTS (SELECT 1 FROM graphile_worker._private_jobs taken
                  WHERE taken.key = CASE WHEN old.key = 'event-notifier:sweep' THEN 'jobs:sweep'
                                         ELSE replace(old.key, 'transaction-', 'transaction:') END);
  UPDATE graphile_worker._private_jobs
     SET key = CASE WHEN key = 'event-notifier:sweep' THEN 'jobs:sweep' ELSE regexp_replace(key, '^transaction-', 'transaction:') END
   WHERE key LIKE 'transaction-send:%' OR key LIKE 'transaction-monitor:%' OR key = 'event-notifier:sweep';
END
$$;
