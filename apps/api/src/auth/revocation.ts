import type { Db, Queryable } from '#api/db/db.ts';
import { type AccessTokenClaims, signAccessToken } from './accessTokens.ts';

/**
 * How long after its token's expiry a row of `access_tokens` is kept. An API process refuses a token by its own
 * clock, so a revocation must outlive the expiry by more than the clocks of the database and the API processes
 * may differ; past that the token is refused as expired anyway.
 */
export const PRUNE_AFTER_EXPIRY_SECONDS = 300;

export interface TokenRecord {
  userId: number;
  expiresAt: Date;
  /** When it was revoked before this call, if it was. */
  revokedAt: Date | null;
}

/**
 * Signs an access token and records its id, user and expiry, so that `revoke-token` can name it. Each write to
 * the table also prunes the rows whose tokens expired: the table holds no more than the tokens still valid.
 */
export async function issueAccessToken(
  db: Db,
  key: Buffer,
  input: { userId: number; projectId?: number; expiresInSeconds: number; now?: number },
): Promise<{ token: string; claims: AccessTokenClaims }> {
  const issued = signAccessToken(key, input);
  const { claims } = issued;
  await db.transaction(async (client) => {
    await pruneAccessTokens(client);
    await client.query(
      `INSERT INTO access_tokens (jti, user_id, project_id, issued_at, expires_at)
       VALUES ($1, $2, $3, to_timestamp($4), to_timestamp($5))`,
      [claims.jti, input.userId, input.projectId ?? null, claims.iat, claims.exp],
    );
  });
  return issued;
}

/** Refuses one token from now on, on every API process. `undefined` when no recorded token has that id. */
export async function revokeAccessToken(db: Db, jti: string): Promise<TokenRecord | undefined> {
  return db.transaction(async (client) => {
    await pruneAccessTokens(client);
    const { rows } = await client.query<{ user_id: number; expires_at: Date; revoked_at: Date | null }>(
      `UPDATE access_tokens t SET revoked_at = coalesce(t.revoked_at, now())
         FROM access_tokens before WHERE t.jti = $1 AND before.jti = t.jti
       RETURNING t.user_id, t.expires_at, before.revoked_at`,
      [jti],
    );
    const row = rows[0];
    return row && { userId: row.user_id, expiresAt: row.expires_at, revokedAt: row.revoked_at };
  });
}

/**
 * Refuses every token of the user issued until now, and ends every sign-in link of theirs not used yet (`client`
 * may be the caller's transaction): a link lying in a chat or a scrollback would otherwise sign in again. Tokens
 * carry their issue time in whole seconds, so one issued in the same second as the revocation is refused too.
 * Returns the time tokens must be issued after, or `undefined` when the user does not exist.
 */
export async function revokeUserTokens(client: Queryable, userId: number): Promise<Date | undefined> {
  await pruneAccessTokens(client);
  const { rows } = await client.query<{ at: Date }>(
    'UPDATE users SET tokens_revoked_before = now() WHERE id = $1 RETURNING tokens_revoked_before AS at',
    [userId],
  );
  if (!rows[0]) return undefined;
  await client.query(
    'UPDATE access_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()',
    [userId],
  );
  // The exchange also refuses a link made before tokens_revoked_before; ending the links here keeps them from
  // reading as unused in the table.
  await client.query(
    'UPDATE console_links SET expires_at = now() WHERE user_id = $1 AND used_at IS NULL AND expires_at > now()',
    [userId],
  );
  return rows[0].at;
}

/** Deletes the rows whose tokens have expired (see PRUNE_AFTER_EXPIRY_SECONDS). Returns how many. */
export async function pruneAccessTokens(client: Queryable): Promise<number> {
  const { rowCount } = await client.query(
    'DELETE FROM access_tokens WHERE expires_at < now() - make_interval(secs => $1)',
    [PRUNE_AFTER_EXPIRY_SECONDS],
  );
  return rowCount ?? 0;
}
