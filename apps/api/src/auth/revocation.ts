import type { Db, Queryable } from '#api/db/db.ts';
import { type AccessTokenClaims, signAccessToken, type TokenSubject } from './accessTokens.ts';

/**
 * How long after its token's expiry a row of `access_tokens` is kept. An API process refuses a token by its own
 * clock, so a revocation must outlive the expiry by more than the clocks of the database and the API processes
 * may differ; past that the token is refused as expired anyway.
 */
export const PRUNE_AFTER_EXPIRY_SECONDS = 300;

export interface TokenRecord {
  /** The token's user; `null` for a token exchanged for a project API key. */
  userId: number | null;
  expiresAt: Date;
  /** When it was revoked before this call, if it was. */
  revokedAt: Date | null;
}

/**
 * Signs an access token and records its id, holder (user or API key) and expiry, so that `revoke-token` can name
 * it. A token of an API key belongs to a session (`session`: the one it renews, else a new one, named by this
 * token's id, that starts now). Each write to the table also prunes the rows whose tokens expired: the table holds
 * no more than the tokens still valid.
 */
export async function issueAccessToken(
  db: Db,
  key: Buffer,
  input: IssueInput,
): Promise<{ token: string; claims: AccessTokenClaims }> {
  return db.transaction((client) => issueAccessTokenIn(client, key, input));
}

type IssueInput = TokenSubject & { expiresInSeconds: number; now?: number; session?: { id: string; startedAt: Date } };

/** issueAccessToken in the caller's transaction (a renewal, which locks its session's row first). */
export async function issueAccessTokenIn(
  client: Queryable,
  key: Buffer,
  input: IssueInput,
): Promise<{ token: string; claims: AccessTokenClaims }> {
  const issued = signAccessToken(key, input);
  const { claims } = issued;
  const byKey = 'apiKeyId' in input;
  await pruneAccessTokens(client);
  await client.query(
    `INSERT INTO access_tokens
       (jti, user_id, api_key_id, project_id, issued_at, expires_at, session_id, session_started_at)
     VALUES ($1, $2, $3, $4, to_timestamp($5), to_timestamp($6), $7, $8)`,
    [
      claims.jti,
      byKey ? null : input.userId,
      byKey ? input.apiKeyId : null,
      input.projectId ?? null,
      claims.iat,
      claims.exp,
      byKey ? (input.session?.id ?? claims.jti) : null,
      byKey ? (input.session?.startedAt ?? new Date(claims.iat * 1000)) : null,
    ],
  );
  return issued;
}

/** Refuses one token from now on, on every API process. `undefined` when no recorded token has that id. */
export async function revokeAccessToken(db: Db, jti: string): Promise<TokenRecord | undefined> {
  return db.transaction(async (client) => {
    await pruneAccessTokens(client);
    const { rows } = await client.query<{ user_id: number | null; expires_at: Date; revoked_at: Date | null }>(
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

/**
 * Refuses the caller's own token from now on (revoke-access-token, the console's Sign out): a user's token by its
 * id (recorded now if it was issued unrecorded), a token of an API key with its whole session, every token renewed
 * in it. Locking the session's rows first makes a renewal at the same moment either end before (its new row is
 * revoked too) or see the session revoked (renewApiKeyToken).
 */
export async function revokeOwnToken(db: Db, claims: AccessTokenClaims): Promise<void> {
  await db.transaction(async (client) => {
    await pruneAccessTokens(client);
    if (claims.akid !== undefined) {
      const session = `(SELECT session_id FROM access_tokens WHERE jti = $1)`;
      await client.query(`SELECT 1 FROM access_tokens WHERE session_id = ${session} FOR UPDATE`, [claims.jti]);
      await client.query(
        `UPDATE access_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE session_id = ${session}`,
        [claims.jti],
      );
      return;
    }
    await client.query(
      `INSERT INTO access_tokens (jti, user_id, project_id, issued_at, expires_at, revoked_at)
       VALUES ($1, $2, $3, to_timestamp($4), to_timestamp($5), now())
       ON CONFLICT (jti) DO UPDATE SET revoked_at = coalesce(access_tokens.revoked_at, now())`,
      [claims.jti, Number(claims.sub), claims.pid ?? null, claims.iat, claims.exp],
    );
  });
}

/** Deletes the rows whose tokens have expired (see PRUNE_AFTER_EXPIRY_SECONDS). Returns how many. */
export async function pruneAccessTokens(client: Queryable): Promise<number> {
  const { rowCount } = await client.query(
    'DELETE FROM access_tokens WHERE expires_at < now() - make_interval(secs => $1)',
    [PRUNE_AFTER_EXPIRY_SECONDS],
  );
  return rowCount ?? 0;
}
