-- Revoking access tokens. A token is a signed JWT that the API verifies without the database; these are what
-- authentication also looks up, in the statement that reads the user's memberships.
-- * access_tokens: the tokens the platform issued (admin CLI, the demo), by id (the `jti` claim), with their expiry,
--   so that `revoke-token` can name one and say when an id is unknown. `revoked_at` set: the token is refused.
--   A row is useless once its token has expired (it is refused as expired anyway): rows are pruned then.
-- * users.tokens_revoked_before: every token of the user issued before this time is refused (revoke-user-tokens,
--   remove-member), including tokens issued before this table existed.
CREATE TABLE access_tokens (
  jti         uuid PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id  integer REFERENCES projects (id) ON DELETE CASCADE,
  issued_at   timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX access_tokens_user ON access_tokens (user_id);
CREATE INDEX access_tokens_expires_at ON access_tokens (expires_at);

ALTER TABLE users ADD COLUMN tokens_revoked_before timestamptz;
