import pg from 'pg';
import type { Db } from '#api/db/db.ts';

export interface WalletLock {
  release(): Promise<void>;
}

/**
 * Takes the lock of one job kind for one (wallet, network), so that one process at a time sends (or monitors) for
 * a wallet. It is a session advisory lock on a connection of its own: when a process dies, even by SIGKILL, its
 * connection closes and PostgreSQL frees the lock at once. Resolves to undefined when another process holds it.
 */
export async function tryWalletLock(
  db: Db,
  kind: 'send' | 'monitor',
  target: { walletId: number; networkId: number },
): Promise<WalletLock | undefined> {
  const client = new pg.Client({
    connectionString: (db.pool.options as { connectionString?: string }).connectionString,
  });
  client.on('error', () => {});
  await client.connect();
  const [key1, key2] = walletLockKeys(kind, target);
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
      key1,
      key2,
    ]);
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

/** The lock's two int4 keys: the kind and wallet in one, the network in the other. */
export function walletLockKeys(kind: 'send' | 'monitor', target: { walletId: number; networkId: number }) {
  return [(kind === 'send' ? 0x7400_0000 : 0x7500_0000) + target.walletId, target.networkId] as const;
}

/** Whether some process holds the lock right now (read from pg_locks, without taking it). */
export async function walletLockHeld(
  db: Pick<Db, 'query'>,
  kind: 'send' | 'monitor',
  target: { walletId: number; networkId: number },
): Promise<boolean> {
  const [key1, key2] = walletLockKeys(kind, target);
  const { rows } = await db.query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid
        AND objid = $2::bigint::oid AND objsubid = 2`,
    [key1, key2],
  );
  return rows.length > 0;
}
