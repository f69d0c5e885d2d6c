-- Access tokens exchanged for a project API key (exchange-api-key: the console signs in with the key and keeps only
-- such a token, never the key). Such a row names its key instead of a user: the token acts with the key's project
-- and role, and only while the key is the project's current one (rotate-api-key ends its tokens). Renewing
-- (renew-access-token) writes a row of the same session; signing out (revoke-access-token) revokes every row of
-- the session. A session is renewed at most until 12 hours after it began (session_started_at).
ALTER TABLE access_tokens ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE access_tokens
  ADD COLUMN api_key_id integer REFERENCES api_keys (id) ON DELETE CASCADE,
  ADD COLUMN session_id uuid,
  ADD COLUMN session_started_at timestamptz,
  ADD CONSTRAINT access_tokens_user_or_key CHECK ((user_id IS NULL) <> (api_key_id IS NULL)),
  ADD CONSTRAINT access_tokens_key_session CHECK (
    api_key_id IS NULL OR (session_id IS NOT NULL AND session_started_at IS NOT NULL AND project_id IS NOT NULL)
  );
CREATE INDEX access_tokens_session ON access_tokens (session_id) WHERE session_id IS NOT NULL;
