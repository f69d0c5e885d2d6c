-- A backfill stores tens of thousands of records a second, a few thousand per statement. The two foreign keys of
-- event_notifier_records checked every row on its own: a look-up and a lock of the same subscription per record,
-- about a quarter of the insert's time. The same guarantees now hold once per statement:
-- - every inserted record's subscription exists, and is locked FOR KEY SHARE as the foreign key locked it, so that
--   an insert and the deletion of its subscription wait for each other: the insert is refused (23503) when the
--   subscription went first, and the deletion takes the records with it when the insert committed first;
-- - a removal notice's record exists (notices are inserted with the removal of their record, in one statement);
-- - deleting a subscription deletes its records, removal notices included. Records are deleted no other way, so
--   the cascade from a record to its removal notice is that one.
ALTER TABLE event_notifier_records
  DROP CONSTRAINT event_notifier_records_subscription_id_fkey,
  DROP CONSTRAINT event_notifier_records_removal_of_fkey;

CREATE FUNCTION event_notifier_records_check_keys() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wanted uuid[];
  found integer;
BEGIN
  SELECT array_agg(DISTINCT subscription_id) INTO wanted FROM new_records;
  SELECT count(*) INTO found
    FROM (SELECT 1 FROM event_notifier_subscriptions WHERE id = ANY (wanted) FOR KEY SHARE) AS locked;
  IF found < coalesce(cardinality(wanted), 0) THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'insert on table "event_notifier_records" refers to a subscription that does not exist',
      TABLE = 'event_notifier_records', CONSTRAINT = 'event_notifier_records_subscription_id_fkey';
  END IF;
  IF EXISTS (SELECT 1 FROM new_records n
              WHERE n.removal_of IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM event_notifier_records r WHERE r.id = n.removal_of)) THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'insert on table "event_notifier_records" refers to a removed record that does not exist',
      TABLE = 'event_notifier_records', CONSTRAINT = 'event_notifier_records_removal_of_fkey';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER event_notifier_records_keys
  AFTER INSERT ON event_notifier_records
  REFERENCING NEW TABLE AS new_records
  FOR EACH STATEMENT
  EXECUTE FUNCTION event_notifier_records_check_keys();

CREATE FUNCTION event_notifier_subscriptions_delete_records() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM event_notifier_records WHERE subscription_id IN (SELECT id FROM old_subscriptions);
  RETURN NULL;
END $$;

CREATE TRIGGER event_notifier_subscriptions_records
  AFTER DELETE ON event_notifier_subscriptions
  REFERENCING OLD TABLE AS old_subscriptions
  FOR EACH STATEMENT
  EXECUTE FUNCTION event_notifier_subscriptions_delete_records();
