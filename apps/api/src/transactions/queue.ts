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
 * SQL to embed in the statement that accepts a transaction (wallet, network, payload and job key as the given
 * parameters): wakes the sender only if no wake is pending. Under load most acceptances find one pending and write
 * nothing more than their own row; the one that sets the flag queues the job in the same statement, so the flag is
 * never set without its job. `transaction_senders` must already hold the (wallet, network) row: see ensureSender.
 */
export const WAKE_SENDER_SQL = (walletId: string, networkId: string, payload: string, jobKey: string) =>
  `woken AS (
     UPDATE transaction_senders SET wake_requested_at = now()
     WHERE system_wallet_id = ${walletId} AND network_id = ${networkId} AND EXISTS (SELECT 1 FROM inserted)
       AND (wake_requested_at IS NULL OR wake_requested_at < now() - ${WAKE_STALE_AFTER})
     RETURNING 1
   ), queued AS (
     SELECT graphile_worker.add_job('${SEND_TASK}', ${payload}::json, job_key => ${jobKey}, max_attempts => 25)
     FROM woken
   )`;

const ensuredSenders = new Set<string>();

/** Creates the wake flag row of a (wallet, network) once; remembered per process, rows are never deleted. */
export async function ensureSender(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  const key = sendJobKey(target);
  if (ensuredSenders.has(key)) return;
  await db.query(
    'INSERT INTO transaction_senders (system_wallet_id, network_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [target.walletId, target.networkId],
  );
  ensuredSenders.add(key);
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
