import type { Db, Queryable } from '#api/db/db.ts';
import { addJob } from '#api/worker/jobs.ts';

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

/**
 * The same as enqueueSend, as SQL to embed in a statement (payload and job key as the given parameters), so that
 * accepting a transaction and queueing its sending take one round trip.
 */
export const SEND_JOB_SQL = (payload: string, jobKey: string) =>
  `SELECT graphile_worker.add_job('${SEND_TASK}', ${payload}::json, job_key => ${jobKey}, max_attempts => 25)`;

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
