import Type from 'typebox';
import type { NetworkId } from '#api/config/networks.ts';
import type { Db } from '#api/db/db.ts';
import { runQueuedSql } from '#api/jobs/addJob.ts';
import { advisoryLockHeld, type LockKey } from '#api/jobs/advisoryLock.ts';
import { defineJob, type Job } from '#api/jobs/defineJob.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { observeChain } from './canonical.ts';
import { monitorTransactions } from './monitorTransactions.ts';
import { inFlightRoom } from './prepareRound.ts';
import { WAKE_STALE_AFTER, type WalletNetwork, walletChain } from './senders.ts';
import { sendTransactions } from './sendTransactions.ts';
import { DEFAULT_TRANSACTION_SETTINGS, type TransactionSettings } from './settings.ts';

const WalletNetworkPayload = Type.Object({
  walletId: Type.Integer({ minimum: 1 }),
  networkId: Type.Integer({ minimum: 1 }),
});

/** The project whose dedicated wallet this is; null for a shared wallet (several projects send from it). */
async function projectOfWallet(db: Db, { walletId }: WalletNetwork): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    'SELECT id FROM projects WHERE wallet_mainnet_id = $1 OR wallet_testnet_id = $1 LIMIT 2',
    [walletId],
  );
  return rows.length === 1 ? (rows[0] as { id: number }).id : null;
}

const settingsOf = (deps: WorkerDeps): TransactionSettings => ({
  ...DEFAULT_TRANSACTION_SETTINGS,
  ...deps.transactions,
});

// The two jobs below name their payload type twice: the annotation, because each refers to itself, and the type
// argument, because inferring it against the annotation costs the typecheck seconds (TypeBox's static types compared
// structurally).

// Advisory locks: one process at a time sends (or monitors) for a wallet on a network, across workers.
export const sendLock = (target: WalletNetwork): LockKey => [0x7400_0000 + target.walletId, target.networkId];
export const monitorLock = (target: WalletNetwork): LockKey => [0x7500_0000 + target.walletId, target.networkId];

/**
 * `transaction:send` for one (wallet, network): estimates gas, allocates nonces, signs and broadcasts every waiting
 * transaction in rounds until none is left (see sendTransactions.ts). Woken by each acceptance (wakeSender).
 */
export const sendJob: Job<typeof WalletNetworkPayload> = defineJob<typeof WalletNetworkPayload>({
  name: 'transaction:send',
  lane: 'sending',
  payload: WalletNetworkPayload,
  subject: (target) => `${target.walletId}:${target.networkId}`,
  projectOf: projectOfWallet,
  maxAttempts: 25,
  // Another run is sending for this wallet: it starts this one when it lets go (it is usually just finishing: an
  // acceptance queues a run once the holder has cleared its wake flag); the retry is for a holder that dies.
  lock: {
    key: sendLock,
    retryInMs: () => 250,
    wakeOnRelease: true,
    // A run that stopped for want of room under the in-flight limit, while the monitor freed some (its wake skips a
    // sender holding the lock): what it left is read here.
    afterRelease: async (deps, target) => {
      if (await senderWanted(deps, target)) await sendJob.enqueue(deps.db.pool, target);
    },
  },
  run: ({ deps, payload, requeue }) =>
    sendTransactions(deps, settingsOf(deps), payload, {
      again: (runAt) => requeue(deps.db.pool, runAt ? { runAt } : {}),
      monitor: () => wakeMonitor(deps.db, payload),
    }),
  recover: (deps, graceMs) => recoverWallets(deps.db, graceMs, sendJob, "status IN ('created', 'processing')"),
});

/**
 * `transaction:monitor` for one (wallet, network): waits for the receipts of broadcast transactions and records
 * their outcome, re-sending with a higher fee what waits too long; then watches mined ones until their block is
 * final, taking back what a reorg removes (see monitorTransactions.ts and followCanonical.ts).
 */
export const monitorJob: Job<typeof WalletNetworkPayload> = defineJob<typeof WalletNetworkPayload>({
  name: 'transaction:monitor',
  lane: 'monitoring',
  payload: WalletNetworkPayload,
  subject: (target) => `${target.walletId}:${target.networkId}`,
  projectOf: projectOfWallet,
  maxAttempts: 25,
  lock: {
    key: monitorLock,
    retryInMs: (deps) => settingsOf(deps).monitorPollMs,
    // A wake that found this run holding the lock queued nothing (see wakeMonitor): what it woke for is read here.
    afterRelease: async (deps, target) => {
      if (await monitorWanted(deps.db, target)) await monitorJob.enqueue(deps.db.pool, target);
    },
  },
  run: ({ deps, payload, requeue }) =>
    monitorTransactions(deps, settingsOf(deps), payload, {
      again: (runAt) => requeue(deps.db.pool, { runAt }),
      // Unless a sender is at work for the wallet (it takes what waits before it ends).
      sender: async () => {
        if (!(await advisoryLockHeld(deps.db, sendLock(payload)))) await sendJob.enqueue(deps.db.pool, payload);
      },
    }),
  recover: async (deps, graceMs) =>
    (await recoverWallets(
      deps.db,
      graceMs,
      monitorJob,
      "status IN ('broadcasted', 'cancelling') OR (status IN ('succeeded', 'reverted', 'cancelled') AND finalized_at IS NULL)",
    )) + (await recoverChainResets(deps)),
});

/**
 * Wakes the monitor of a (wallet, network) after one of its rows was broadcast or handed to its custodian (a send, a
 * custodian's hash), unless a run holds its lock: that run reads the row on its next pass or, if it was on its way
 * out, in its look after letting go (monitorWanted). Under load the monitor is mostly running, and a wake then costs
 * one read instead of a queued job that every lane's runner is notified of, only to find the lock held.
 */
export async function wakeMonitor(db: Db, target: WalletNetwork): Promise<void> {
  if (!(await advisoryLockHeld(db, monitorLock(target)))) await monitorJob.enqueue(db.pool, target);
}

/**
 * Whether a sender run that just ended leaves transactions nobody will send: some wait (`created`), no run of the
 * sender is queued (a run that pauses queues its own, for later; see runQueuedSql) and the in-flight limit has room
 * for them. A run stops when it finds no room, and the monitor, which frees room as it records receipts, wakes the
 * sender only when no run holds its lock (see the monitor's `sender`): room it freed while a run was on its way out
 * is found here. The monitor's records commit before it looks at the lock, and this look comes after the run let go
 * of it.
 */
async function senderWanted(deps: WorkerDeps, target: WalletNetwork): Promise<boolean> {
  const { devChain } = walletChain(deps.chains, target);
  const room = await inFlightRoom({ db: deps.db, settings: settingsOf(deps), target, devChain });
  // With no limit (anvil's automine) a run never stops for room, and this look has nothing to find: no statement.
  if (room <= 0 || room === Number.POSITIVE_INFINITY) return false;
  const { rows } = await deps.db.query<{ waiting: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM transactions
                     WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'created')
        AND NOT ${runQueuedSql('$3')} AS waiting`,
    [target.walletId, target.networkId, sendJob.jobKey(target)],
    'sender-wanted',
  );
  return rows[0]?.waiting === true;
}

/**
 * Whether a monitor run that just ended leaves work nobody will take up: a row waiting for its receipt (a run ends
 * only when none waits, so this one came after its last pass), or rows its custodian holds when the run queued no
 * next run for them (it saw none; see runQueuedSql). One statement.
 */
async function monitorWanted(db: Db, target: WalletNetwork): Promise<boolean> {
  const { rows } = await db.query<{ wanted: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM transactions
                     WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('broadcasted', 'cancelling'))
         OR (EXISTS (SELECT 1 FROM transactions WHERE system_wallet_id = $1 AND network_id = $2
                        AND status = 'processing' AND custody_id IS NOT NULL)
             AND NOT ${runQueuedSql('$3')}) AS wanted`,
    [target.walletId, target.networkId, monitorJob.jobKey(target)],
    'monitor-wanted',
  );
  return rows[0]?.wanted === true;
}

/**
 * Queues `job` for every wallet whose unfinished transactions (`waiting`) nobody is working on: untouched for
 * `graceMs`, and no process holds the job's lock for the wallet. This finishes the work of a job that a killed
 * worker, or one that lost its database connection, left locked in the queue, while no new execution comes to
 * wake the wallet.
 */
async function recoverWallets(
  db: Db,
  graceMs: number,
  job: Job<typeof WalletNetworkPayload>,
  waiting: string,
): Promise<number> {
  const { rows } = await db.query<WalletNetwork>(
    `SELECT system_wallet_id AS "walletId", network_id AS "networkId"
       FROM transactions
      WHERE status IN ('created', 'processing', 'broadcasted', 'cancelling')
         OR (status IN ('succeeded', 'reverted', 'cancelled') AND finalized_at IS NULL)
      GROUP BY system_wallet_id, network_id
     HAVING bool_or(${waiting}) AND max(updated_at) < clock_timestamp() - $1 * interval '1 millisecond'`,
    [graceMs],
  );
  let queued = 0;
  for (const target of rows) {
    if (job.lock && (await advisoryLockHeld(db, job.lock.key(target)))) continue;
    await job.enqueue(db.pool, target);
    queued++;
  }
  return queued;
}

/**
 * A chain can take back even final transactions when it is reset or rolled back below them, and then no monitor
 * runs for their wallets. So each sweep asks every network the platform has seen for its head, and queues the
 * monitor of each wallet with mined transactions above it (a head that lasted lower than before: see
 * observeChain). A network that does not answer is left for the next sweep.
 */
async function recoverChainResets(deps: WorkerDeps): Promise<number> {
  const settings = settingsOf(deps);
  const { rows: networks } = await deps.db.query<{ networkId: number }>(
    'SELECT network_id AS "networkId" FROM network_heads',
  );
  let queued = 0;
  for (const { networkId } of networks) {
    let head: number;
    try {
      const view = await observeChain(deps.db, deps.chains.client(networkId as NetworkId), networkId, {
        fallbackDepth: settings.finalityDepth[networkId] ?? 0,
        lagGraceMs: settings.lagGraceMs,
      });
      if (view.lagging) continue;
      head = view.head;
    } catch {
      continue;
    }
    const { rows } = await deps.db.query<{ walletId: number }>(
      `SELECT DISTINCT system_wallet_id AS "walletId" FROM transactions
        WHERE network_id = $1 AND block_number > $2 AND status IN ('succeeded', 'reverted', 'cancelled')`,
      [networkId, head],
    );
    for (const { walletId } of rows) {
      await monitorJob.enqueue(deps.db.pool, { walletId, networkId });
      queued++;
    }
  }
  return queued;
}

/**
 * Wakes the sender of a (wallet, network) after a transaction was stored, unless a wake is already pending: under
 * load most acceptances find one pending and write nothing. Setting the flag and queueing the job (through
 * sendJob's SQL queue function) are one statement, so the flag is never set without its job. It must run after the
 * transaction's row committed (its own statement): then either its snapshot sees the sender's clearing of the flag
 * and it queues a new run, or it predates the clearing, and the row committed before the sender's first read. Embedded in the insert, a statement
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
     SELECT ${sendJob.queueFunction}($1, $2) FROM woken`,
    [target.walletId, target.networkId],
    'wake-sender',
  );
}
