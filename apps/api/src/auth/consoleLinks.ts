import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '#api/db/db.ts';
import { issueAccessToken } from './revocation.ts';

/** How long a console sign-in link is good for when the command does not say: 15 minutes. */
export const CONSOLE_LINK_DEFAULT_SECONDS = 15 * 60;
/** The longest a link may live: one hour. A link is a bearer secret shown on a terminal; it should not linger. */
export const CONSOLE_LINK_MAX_SECONDS = 60 * 60;
/** How long the access token a link is exchanged for lives: 12 hours, a working day in the console. */
export const CONSOLE_SESSION_SECONDS = 12 * 60 * 60;
/** Rows are kept this long after they expire, then pruned by the next link written. */
const PRUNE_AFTER_SECONDS = 60 * 60;

/** A link's code: 32 random bytes, base64url (43 characters). */
export const CONSOLE_LINK_CODE = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (code: string) => createHash('sha256').update(code).digest();

/**
 * Creates a one-time sign-in link code for a user (limited to one project when given). Only its hash is stored.
 */
export async function createConsoleLink(
  db: Db,
  input: { userId: number; projectId?: number; expiresInSeconds: number },
): Promise<{ code: string; expiresAt: Date }> {
  const code = randomBytes(32).toString('base64url');
  const { rows } = await db.transaction(async (client) => {
    await client.query('DELETE FROM console_links WHERE expires_at < now() - make_interval(secs => $1)', [
      PRUNE_AFTER_SECONDS,
    ]);
    return client.query<{ expires_at: Date }>(
      `INSERT INTO console_links (code_hash, user_id, project_id, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING expires_at`,
      [hashOf(code), input.userId, input.projectId ?? null, input.expiresInSeconds],
    );
  });
  return { code, expiresAt: (rows[0] as { expires_at: Date }).expires_at };
}

export type ConsoleLinkRefusal = 'unknown' | 'used' | 'revoked' | 'expired';

/**
 * Takes a link's code and, when it is known, unused, unexpired and made after its user's tokens were last revoked
 * (`users.tokens_revoked_before`: revoke-user-tokens, remove-member), marks it used and issues an access token for
 * its user: one statement decides, so two exchanges of the same code at once get one token between them.
 */
export async function exchangeConsoleLink(
  db: Db,
  key: Buffer,
  code: string,
): Promise<
  | { ok: true; accessToken: string; expiresAt: Date; projectId: number | null }
  | { ok: false; reason: ConsoleLinkRefusal }
> {
  const hash = hashOf(code);
  const { rows } = await db.query<{ user_id: number; project_id: number | null }>(
    `UPDATE console_links l SET used_at = now()
       FROM users u
      WHERE l.code_hash = $1 AND l.used_at IS NULL AND l.expires_at > now() AND u.id = l.user_id
        AND (u.tokens_revoked_before IS NULL OR l.created_at > u.tokens_revoked_before)
      RETURNING l.user_id, l.project_id`,
    [hash],
    'console-link-exchange',
  );
  const row = rows[0];
  if (!row) {
    const { rows: found } = await db.query<{ used: boolean; revoked: boolean }>(
      `SELECT l.used_at IS NOT NULL AS used, coalesce(l.created_at <= u.tokens_revoked_before, false) AS revoked
         FROM console_links l JOIN users u ON u.id = l.user_id WHERE l.code_hash = $1`,
      [hash],
      'console-link-refusal',
    );
    const link = found[0];
    return { ok: false, reason: link ? (link.used ? 'used' : link.revoked ? 'revoked' : 'expired') : 'unknown' };
  }
  const { token, claims } = await issueAccessToken(db, key, {
    userId: row.user_id,
    expiresInSeconds: CONSOLE_SESSION_SECONDS,
    ...(row.project_id !== null ? { projectId: row.project_id } : {}),
  });
  return { ok: true, accessToken: token, expiresAt: new Date(claims.exp * 1000), projectId: row.project_id };
}

/**
 * The address a person opens: the console's sign-in page with the code in the fragment, which browsers never send
 * to a server (nor keep in a Referer); the console takes it out of the address before exchanging it.
 */
export function consoleSignInLink(consoleUrl: string, code: string): string {
  return `${consoleUrl.replace(/\/+$/, '')}/sign-in#code=${code}`;
}
