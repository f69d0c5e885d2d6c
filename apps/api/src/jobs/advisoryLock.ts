import pg from 'pg';
import type { Db } from '#api/db/db.ts';

/**
 * A PostgreSQL advisory lock key in its two-key form: a class (which kind of work) and an object. A string object
 * is hashed by PostgreSQL (`hashtext`), so any id can name one.
 */
export type LockKey = readonly [classId: number, object: number | string];

export interface AdvisoryLock {
  release(): Promise<void>;
}

/**
 * Takes a session advisory lock on a connection of its own, so that one process at a time does the work it
 * guards. When a process dies, even by SIGKILL, its connection closes and PostgreSQL frees the lock at once; the
 * connection is not taken from the pool, so a held lock never starves the work itself of connections.
 * Resolves to undefined when another session holds it.
 */
export async function tryAdvisoryLock(db: Db, key: LockKey): Promise<AdvisoryLock | undefined> {
  const client = new pg.Client({
    connectionString: (db.pool.options as { connectionString?: string }).connectionString,
  });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock($1, ${objectSql(key)}) AS locked`,
      [key[0], key[1]],
    );
    if (!rows[0]?.locked) {
      await client.end();
      return undefined;
    }
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return {
    async release() {
      // Closing the session frees the lock.
      await client.end().catch(() => {});
    },
  };
}

/** Whether some session holds the lock right now (read from pg_locks, without taking it). */
export async function advisoryLockHeld(db: Pick<Db, 'query'>, key: LockKey): Promise<boolean> {
  // pg_locks shows the two int4 keys as oids (unsigned): a negative hash appears as its two's complement.
  const { rows } = await db.query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND classid = ($1::int8 & 4294967295)::oid AND objid = (${objectSql(key)}::int8 & 4294967295)::oid`,
    [key[0], key[1]],
  );
  return rows.length > 0;
}

const objectSql = (key: LockKey) => (typeof key[1] === 'string' ? 'hashtext($2)' : '$2::int4');
