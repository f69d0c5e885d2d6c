import type { Db, Queryable } from '#api/db/db.ts';
import { addJob } from '#api/worker/jobs.ts';
import { walletLockHeld } from './walletLock.ts';

/** Job names of the transaction pipeline; their processors live in transactionTasks.ts. */
export const SEND_TASK = 'transaction-send';
export const MONITOR_TASK = 'transaction-monitor';

export interface WalletNetwork {
  walletId: number;
  networkId: number;
}

/**
 * Asks for the sender of one (wallet, network) to run. The job key collapses a burst of requests into one queued
 * job; the sender then takes every waiting transaction of that wallet in nonce order.
 */
export function enqueueSend(client: Queryable, target: WalletNetwork, runAt?: Date): Promise<void> {
  return addJob(client, SEND_TASK, target, {
    jobKey: sendJobKey(target),
    maxAttempts: 25,
    ...(runAt ? { runAt } : {}),
  });
}

export const sendJobKey = (target: WalletNetwork) => `${SEND_TASK}:${target.walletId}:${target.networkId}`;

/** After this long without a sender clearing it, a wake request is made again (its job may have been lost). */
export const WAKE_STALE_AFTER = "interval '10 seconds'";

/**
 * Wakes the sender of a (wallet, network) after a transaction was stored, unless a wake is already pending: under
 * load most acceptances find one pending and write nothing. Setting the flag and queueing the job are one
 * statement, so the flag is never set without its job. It must run after the transaction's row committed (its own
 * statement): then either its snapshot sees the sender's clearing of the flag and it queues a new run, or it
 * predates the clearing, and the row committed before the sender's first read. Embedded in the insert, a statement
 * whose snapshot predated the clearing could commit after the sender's last read and strand its row.
 * A flag row locked by someone else is skipped, not waited for: its holder is either another acceptance setting the
 * flag (its job will run, and read this row) or the sender clearing it (whose reads start after that commit, so
 * after this row's). Waiting would queue every acceptance behind that one statement.
 * `transaction_senders` must already hold the (wallet, network) row: see ensureSender.
 */
export async function wakeSender(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  await db.query(
    `WITH due AS (
       SELECT system_wallet_id, network_id FROM transaction_senders
        WHERE system_wallet_id = $1 AND network_id = $2
          AND (wake_requested_at IS NULL OR wake_requested_at < now() - ${WAKE_STALE_AFTER})
          FOR UPDATE SKIP LOCKED
     ), woken AS (
       UPDATE transaction_senders s SET wake_requested_at = now() FROM due
        WHERE s.system_wallet_id = due.system_wallet_id AND s.network_id = due.network_id
       RETURNING 1
     )
     SELECT graphile_worker.add_job('${SEND_TASK}', $3::json, job_key => $4, max_attempts => 25) FROM woken`,
    [target.walletId, target.networkId, JSON.stringify(target), sendJobKey(target)],
    'wake-sender',
  );
}

// Per database handle: a process may hold several (tests, benches), each with its own rows.
const ensuredSenders = new WeakMap<object, Set<string>>();

/** Creates the wake flag row of a (wallet, network) once; remembered per process, rows are never deleted. */
export async function ensureSender(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  const key = sendJobKey(target);
  let ensured = ensuredSenders.get(db);
  if (ensured?.has(key)) return;
  await db.query(
    'INSERT INTO transaction_senders (system_wallet_id, network_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [target.walletId, target.networkId],
  );
  if (!ensured) {
    ensured = new Set();
    ensuredSenders.set(db, ensured);
  }
  ensured.add(key);
}

/**
 * Called by the sender when it starts: later acceptances must queue a new job, because this run may already have
 * read past their rows.
 */
export async function clearWakeRequest(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  await db.query(
    'UPDATE transaction_senders SET wake_requested_at = NULL WHERE system_wallet_id = $1 AND network_id = $2 AND wake_requested_at IS NOT NULL',
    [target.walletId, target.networkId],
  );
}

/** Asks for the receipt monitor of one (wallet, network) to run. */
export function enqueueMonitor(client: Queryable, target: WalletNetwork, runAt?: Date): Promise<void> {
  return addJob(client, MONITOR_TASK, target, {
    jobKey: `${MONITOR_TASK}:${target.walletId}:${target.networkId}`,
    maxAttempts: 25,
    ...(runAt ? { runAt } : {}),
  });
}

/**
 * Re-queues the sender and monitor of every (wallet, network) with unfinished transactions. A worker killed
 * mid-job leaves its job locked (graphile-worker frees it only after hours); new jobs under the same key run now.
 */
export async function requeueUnfinished(db: Db): Promise<number> {
  const { rows } = await db.query<{ walletId: number; networkId: number; sending: boolean }>(
    `SELECT system_wallet_id AS "walletId", network_id AS "networkId",
            bool_or(status IN ('created', 'processing')) AS sending
     FROM transactions WHERE status IN ('created', 'processing', 'broadcasted')
     GROUP BY system_wallet_id, network_id`,
  );
  for (const row of rows) {
    const target = { walletId: row.walletId, networkId: row.networkId };
    if (row.sending) await enqueueSend(db.pool, target);
    await enqueueMonitor(db.pool, target);
  }
  return rows.length;
}

/**
 * Re-queues the sender and monitor of wallets whose unfinished transactions nobody is working on: untouched for
 * `graceMs`, and no process holds the wallet's send (or monitor) lock. This is what finishes the work of a job
 * that a killed worker, or a worker that lost its database connection, left locked in the queue, while no new
 * execution comes to wake the wallet. Returns how many jobs it queued.
 */
export async function requeueOrphaned(db: Db, graceMs: number): Promise<number> {
  const { rows } = await db.query<{ walletId: number; networkId: number; sending: boolean; monitoring: boolean }>(
    `SELECT system_wallet_id AS "walletId", network_id AS "networkId",
            bool_or(status IN ('created', 'processing')) AS sending, bool_or(status = 'broadcasted') AS monitoring
       FROM transactions WHERE status IN ('created', 'processing', 'broadcasted')
      GROUP BY system_wallet_id, network_id
     HAVING max(updated_at) < clock_timestamp() - $1 * interval '1 millisecond'`,
    [graceMs],
  );
  let queued = 0;
  for (const row of rows) {
    const target = { walletId: row.walletId, networkId: row.networkId };
    if (row.sending && !(await walletLockHeld(db, 'send', target))) {
      await enqueueSend(db.pool, target);
      queued++;
    }
    if (row.monitoring && !(await walletLockHeld(db, 'monitor', target))) {
      await enqueueMonitor(db.pool, target);
      queued++;
    }
  }
  return queued;
}
