import { revokeUserTokens } from '#api/auth/revocation.ts';
import type { Db } from '#api/db/db.ts';

export type Role = 'admin' | 'editor' | 'reader';
/** Every project role: what a membership may hold, and who may call the operations that only read. */
export const ROLES: readonly Role[] = ['admin', 'editor', 'reader'];

export async function createUser(db: Db, input: { email: string; name?: string }): Promise<{ id: number }> {
  const { rows } = await db.query<{ id: number }>('INSERT INTO users (email, name) VALUES ($1, $2) RETURNING id', [
    input.email.trim().toLowerCase(),
    input.name ?? '',
  ]);
  return rows[0] as { id: number };
}

/** Adds a member, or changes the role of an existing one. */
export async function setMembership(db: Db, input: { projectId: number; userId: number; role: Role }): Promise<void> {
  await db.query(
    `INSERT INTO memberships (project_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role`,
    [input.projectId, input.userId, input.role],
  );
}

/**
 * Removes a member from a project and revokes every access token of theirs, in one transaction: tokens not limited
 * to that project are revoked too, so that none of them comes back to life if the user is added again.
 * Returns the projects the user still belongs to; `undefined` when they were not a member.
 */
export async function removeMembership(
  db: Db,
  input: { projectId: number; userId: number },
): Promise<{ otherProjects: number[] } | undefined> {
  return db.transaction(async (client) => {
    const { rowCount } = await client.query('DELETE FROM memberships WHERE project_id = $1 AND user_id = $2', [
      input.projectId,
      input.userId,
    ]);
    if (!rowCount) return undefined;
    await revokeUserTokens(client, input.userId);
    const { rows } = await client.query<{ project_id: number }>(
      'SELECT project_id FROM memberships WHERE user_id = $1 ORDER BY project_id',
      [input.userId],
    );
    return { otherProjects: rows.map((r) => r.project_id) };
  });
}

export async function findUserId(db: Db, emailOrId: string): Promise<number | undefined> {
  const byId = /^\d+$/.test(emailOrId);
  const { rows } = await db.query<{ id: number }>(`SELECT id FROM users WHERE ${byId ? 'id = $1' : 'email = $1'}`, [
    byId ? Number(emailOrId) : emailOrId.trim().toLowerCase(),
  ]);
  return rows[0]?.id;
}

/** Whether the user is a member of the project, in any role. */
export async function isMember(db: Db, projectId: number, userId: number): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM memberships WHERE project_id = $1 AND user_id = $2', [
    projectId,
    userId,
  ]);
  return (rowCount ?? 0) > 0;
}
