-- When a node first answered a head lower than `head` (NULL while none has, or since one answered `head` or higher).
-- A lower head is the chain's (a rollback, a reset) only once it has lasted the lag grace from then: the time since
-- the last higher answer is no measure when nobody asked the node meanwhile (a busy machine, a sweep's pace).
ALTER TABLE network_heads ADD COLUMN lower_head_since timestamptz;
-- `head_seen_at` decided lag before this column; it is no longer refreshed while the head stands still, and says
-- when the recorded head last changed.
