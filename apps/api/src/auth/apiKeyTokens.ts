import type { Db } from '#api/db/db.ts';
import type { ApiKeyTokenClaims } from './accessTokens.ts';
import { issueAccessToken, issueAccessTokenIn } from './revocation.ts';

/**
 * How long a token exchanged for an API key lives: 15 minutes. The console renews it while the tab is used
 * (renew-access-token), so a token copied out of a tab is good for minutes, not for as long as the key.
 */
export const API_KEY_TOKEN_SECONDS = 15 * 60;
/** How long a session signed in with an API key may be renewed: 12 hours after the key was exchanged. */
export const API_KEY_SESSION_MAX_SECONDS = 12 * 60 * 60;

export interface IssuedSessionToken {
  accessToken: string;
  expiresAt: Date;
  projectId: number;
  /** The latest a renewal of this session may expire. */
  sessionEndsAt: Date;
}

/** Exchanges the caller's API key (already authenticated) for a token of a new session that acts as the key. */
export async function exchangeApiKey(
  db: Db,
  key: Buffer,
  apiKey: { apiKeyId: number; projectId: number },
): Promise<IssuedSessionToken> {
  const { token, claims } = await issueAccessToken(db, key, { ...apiKey, expiresInSeconds: API_KEY_TOKEN_SECONDS });
  return {
    accessToken: token,
    expiresAt: new Date(claims.exp * 1000),
    projectId: apiKey.projectId,
    sessionEndsAt: new Date((claims.iat + API_KEY_SESSION_MAX_SECONDS) * 1000),
  };
}

/**
 * A new token of the presented token's session, for 15 minutes more but never past the session's end (12 hours
 * after it began). The presented token stays valid until its own expiry, so requests already on their way with it
 * still succeed. Refused when the session was revoked meanwhile (its row is locked first: see revokeOwnToken), or
 * has ended.
 */
export async function renewApiKeyToken(
  db: Db,
  key: Buffer,
  claims: ApiKeyTokenClaims,
): Promise<{ ok: true; issued: IssuedSessionToken } | { ok: false; reason: 'revoked' | 'ended' }> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<{ session_id: string; started_at: Date; remaining: number }>(
      `SELECT t.session_id, t.session_started_at AS started_at,
              floor(extract(epoch FROM t.session_started_at + make_interval(secs => $2) - now()))::int AS remaining
         FROM access_tokens t JOIN api_keys k ON k.id = t.api_key_id
        WHERE t.jti = $1 AND t.revoked_at IS NULL AND k.revoked_at IS NULL
          FOR UPDATE OF t`,
      [claims.jti, API_KEY_SESSION_MAX_SECONDS],
    );
    const session = rows[0];
    if (!session) return { ok: false, reason: 'revoked' };
    if (session.remaining <= 0) return { ok: false, reason: 'ended' };
    const { token, claims: renewed } = await issueAccessTokenIn(client, key, {
      apiKeyId: claims.akid,
      projectId: claims.pid,
      expiresInSeconds: Math.min(API_KEY_TOKEN_SECONDS, session.remaining),
      session: { id: session.session_id, startedAt: session.started_at },
    });
    return {
      ok: true,
      issued: {
        accessToken: token,
        expiresAt: new Date(renewed.exp * 1000),
        projectId: claims.pid,
        sessionEndsAt: new Date(session.started_at.getTime() + API_KEY_SESSION_MAX_SECONDS * 1000),
      },
    };
  });
}
