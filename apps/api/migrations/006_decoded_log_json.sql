-- decodedLog keeps the event's parameter order: json stores the document as written, where jsonb reorders keys
-- (shorter first). Nothing queries inside it, and json is cheaper to insert during a backfill.
ALTER TABLE event_notifier_records ALTER COLUMN decoded_log TYPE json USING decoded_log::json;
