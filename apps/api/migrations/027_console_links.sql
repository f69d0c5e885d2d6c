-- Sign-in links of the developer console (`mountain-admin console-link`). A link carries a random code; only the
-- code's SHA-256 is kept. A link is good once (used_at is set in the statement that accepts it) and until
-- expires_at; rows are pruned an hour after they expire.
CREATE TABLE console_links (
  code_hash   bytea PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id  integer REFERENCES projects (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX console_links_expires_at ON console_links (expires_at);
