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
 * Takes a session advisory lock on a connection of its own (from `db.sessions`, not the work's pool, so a held lock
 * never starves the work itself of connections), so that one process at a time does the work it guards. When a
 * process dies, even by SIGKILL, its connections close and PostgreSQL frees the lock at once. Resolves to undefined
 * when another session holds it.
 */
export async function tryAdvisoryLock(db: Db, key: LockKey): Promise<AdvisoryLock | undefined> {
  const taken = await tryAdvisoryLocks(db, { all: [key] });
  return 'lock' in taken ? taken.lock : undefined;
}

/** What tryAdvisoryLocks took: every lock asked for, or nothing and which part another session holds. */
export type LocksTaken = { lock: AdvisoryLock } | { refused: 'all' | 'oneOf' };

/**
 * Takes, on one connection of its own (see tryAdvisoryLock), every lock of `all` and then the first free lock of
 * `oneOf`: a slot of a semaphore that every process shares, such as a project's share of the scans. Releasing
 * frees them all. When one of `all` is held elsewhere, or every lock of `oneOf` is, it holds nothing and says which.
 */
export async function tryAdvisoryLocks(
  db: Db,
  wanted: { all: readonly LockKey[]; oneOf?: readonly LockKey[] },
): Promise<LocksTaken> {
  const client = await db.sessions.connect();
  // Back to the sessions with nothing held; a session that cannot say so is closed, which frees whatever it held.
  let returned = false;
  const giveBack = async () => {
    if (returned) return;
    returned = true;
    try {
      await client.query('SELECT pg_advisory_unlock_all()');
      client.release();
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const tryLock = async (key: LockKey) =>
    (
      await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1, ${objectSql(key)}) AS locked`, [
        key[0],
        key[1],
      ])
    ).rows[0]?.locked === true;
  let refused: 'all' | 'oneOf' | undefined;
  try {
    for (const key of wanted.all) {
      if (!(await tryLock(key))) {
        refused = 'all';
        break;
      }
    }
    if (!refused && wanted.oneOf) {
      let slot = false;
      for (const key of wanted.oneOf) {
        slot = await tryLock(key);
        if (slot) break;
      }
      if (!slot) refused = 'oneOf';
    }
  } catch (error) {
    await giveBack();
    throw error;
  }
  if (refused) {
    await giveBack();
    return { refused };
  }
  return { lock: { release: giveBack } };
}

/**
 * Whether some session holds the lock right now (read from pg_locks, without taking it). Advisory locks belong to
 * one database, and pg_locks shows the whole server's: only this database's count.
 */
export async function advisoryLockHeld(db: Pick<Db, 'query'>, key: LockKey): Promise<boolean> {
  // pg_locks shows the two int4 keys as oids (unsigned): a negative hash appears as its two's complement.
  const { rows } = await db.query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid = ($1::int8 & 4294967295)::oid AND objid = (${objectSql(key)}::int8 & 4294967295)::oid`,
    [key[0], key[1]],
    typeof key[1] === 'string' ? 'advisory-lock-held-text' : 'advisory-lock-held',
  );
  return rows.length > 0;
}

const objectSql = (key: LockKey) => (typeof key[1] === 'string' ? 'hashtext($2)' : '$2::int4');

/**
 * Takes `key` for the database transaction of `client` when no session holds it (a job's lock, see
 * tryAdvisoryLock): the work it guards cannot start before the transaction ends. False when it is held.
 */
export async function tryTransactionLock(client: Pick<Db['pool'], 'query'>, key: LockKey): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_xact_lock($1, ${objectSql(key)}) AS locked`,
    [key[0], key[1]],
  );
  return rows[0]?.locked === true;
}
