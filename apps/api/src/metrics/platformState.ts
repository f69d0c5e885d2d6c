import type { Address } from 'viem';
import type { Chains } from '#api/chain/chains.ts';
import { inRpcBatches } from '#api/chain/rpcBatches.ts';
import type { NetworkId } from '#api/config/networks.ts';
import type { Db } from '#api/db/db.ts';
import {
  jobOldestQueued,
  jobs,
  networkUp,
  rpcEndpointFailures,
  rpcEndpointUp,
  STATE_GAUGES,
  scanLag,
  stateUp,
  transactionOldestUnfinished,
  transactionsUnfinished,
  walletBalance,
  walletLowBalanceThreshold,
  walletNonceLag,
} from './instruments.ts';

/** Where the platform's state is read from: the database, and the chains for heads and pending nonces. */
export interface StateSource {
  db: Db;
  chains: Chains;
  /** LOW_BALANCE_WEI_<id>: the networks' low-balance thresholds (none: no threshold gauge). */
  lowBalanceWei?: Readonly<Partial<Record<NetworkId, bigint>>>;
}

/** A chain that does not answer within this long is reported down for this scrape, not waited for. */
const CHAIN_TIMEOUT_MS = 3_000;

const UNFINISHED = ['created', 'processing', 'broadcasted', 'cancelling'] as const;

// One reading at a time per source: scrapes that arrive while one runs share it.
const readings = new WeakMap<StateSource, Promise<void>>();

/**
 * Sets the state gauges from the database (the job queue, transactions, subscriptions, nonces) and the chains
 * (heads, pending nonces). The same on every process of a deployment, since all share one database: aggregate
 * them with `max` across instances.
 */
export function readPlatformState(source: StateSource): Promise<void> {
  let reading = readings.get(source);
  if (!reading) {
    // Without the database the process's own metrics are still served, with the state gauges left out.
    reading = read(source)
      .then(
        () => stateUp.set(1),
        () => {
          for (const gauge of STATE_GAUGES) gauge.reset();
          stateUp.set(0);
        },
      )
      .finally(() => readings.delete(source));
    readings.set(source, reading);
  }
  return reading;
}

async function read(source: StateSource): Promise<void> {
  const [queue, transactions, scans, nonces] = await Promise.all([
    readQueue(source.db),
    readTransactions(source.db),
    source.db.query<{ network: number; scanned: number }>(
      `SELECT network_id AS network, min(greatest(last_scanned_block, initial_block_number - 1)) AS scanned
         FROM event_notifier_subscriptions WHERE scan_enabled GROUP BY network_id`,
    ),
    source.db.query<{ network: number; address: Address; next: number }>(
      `SELECT n.network_id AS network, w.address,
              coalesce(n.next_nonce, (SELECT max(t.nonce) + 1 FROM transactions t
                                       WHERE t.system_wallet_id = n.system_wallet_id AND t.network_id = n.network_id)) AS next
         FROM wallet_nonces n JOIN system_wallets w ON w.id = n.system_wallet_id`,
    ),
  ]);
  const networks = source.chains.configured();
  const chainViews = await Promise.all(
    networks.map((network) =>
      readChain(
        source.chains,
        network,
        nonces.rows.filter((n) => n.network === network && n.next !== null),
      ),
    ),
  );

  jobs.reset();
  jobOldestQueued.reset();
  for (const row of queue) {
    for (const state of ['queued', 'scheduled', 'running', 'failed'] as const)
      jobs.set({ task: row.task, state }, row[state]);
    jobOldestQueued.set({ task: row.task }, row.oldest ?? 0);
  }

  transactionsUnfinished.reset();
  transactionOldestUnfinished.reset();
  const transactionNetworks = new Set([...networks, ...transactions.map((t) => t.network)]);
  for (const network of transactionNetworks) {
    const rows = transactions.filter((t) => t.network === network);
    for (const status of UNFINISHED) {
      transactionsUnfinished.set({ network, status }, rows.find((r) => r.status === status)?.count ?? 0);
    }
    transactionOldestUnfinished.set({ network }, Math.max(0, ...rows.map((r) => r.oldest)));
  }

  rpcEndpointUp.reset();
  rpcEndpointFailures.reset();
  for (const network of networks) {
    for (const endpoint of source.chains.endpoints(network)) {
      const labels = { network, endpoint: endpoint.name };
      rpcEndpointUp.set(labels, endpoint.state === 'ok' ? 1 : endpoint.state === 'lagging' ? 0.5 : 0);
      rpcEndpointFailures.set(labels, endpoint.failed);
    }
  }

  networkUp.reset();
  scanLag.reset();
  walletNonceLag.reset();
  walletBalance.reset();
  walletLowBalanceThreshold.reset();
  networks.forEach((network, i) => {
    const view = chainViews[i];
    networkUp.set({ network }, view ? 1 : 0);
    const threshold = source.lowBalanceWei?.[network];
    if (threshold !== undefined) walletLowBalanceThreshold.set({ network }, inEther(threshold));
    if (!view) return;
    for (const [wallet, balance] of view.balances) walletBalance.set({ network, wallet }, inEther(balance));
    const scanned = scans.rows.find((s) => s.network === network)?.scanned;
    if (scanned !== undefined) scanLag.set({ network }, Math.max(0, view.head - scanned));
    for (const [wallet, lag] of view.nonceLags) walletNonceLag.set({ network, wallet }, lag);
  });
}

/** Wei in the native currency's units, as Prometheus keeps a float: exact to about 15 digits, enough to alert on. */
const inEther = (wei: bigint) => Number(wei) / 1e18;

/** Per task (job name), its jobs by state and how long the oldest due one has waited, from graphile-worker's tables. */
async function readQueue(db: Db) {
  const { rows } = await db.query<{
    task: string;
    queued: number;
    scheduled: number;
    running: number;
    failed: number;
    oldest: number | null;
  }>(
    `SELECT t.identifier AS task,
            count(j.id) FILTER (WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts AND j.run_at <= now())::int AS queued,
            count(j.id) FILTER (WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts AND j.run_at > now())::int AS scheduled,
            count(j.id) FILTER (WHERE j.locked_at IS NOT NULL)::int AS running,
            count(j.id) FILTER (WHERE j.locked_at IS NULL AND j.attempts >= j.max_attempts)::int AS failed,
            extract(epoch FROM now() - min(j.run_at) FILTER (
              WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts AND j.run_at <= now()))::float8 AS oldest
       FROM graphile_worker._private_tasks t
       LEFT JOIN graphile_worker._private_jobs j ON j.task_id = t.id
      GROUP BY t.identifier`,
  );
  return rows;
}

async function readTransactions(db: Db) {
  const { rows } = await db.query<{ network: number; status: string; count: number; oldest: number }>(
    `SELECT network_id AS network, status, count(*)::int AS count,
            extract(epoch FROM now() - min(created_at))::float8 AS oldest
       FROM transactions WHERE status = ANY($1::text[])
      GROUP BY network_id, status`,
    [UNFINISHED],
  );
  return rows;
}

/** The network's head and each wallet's nonce lag, or undefined when the chain does not answer in time. */
async function readChain(
  chains: Chains,
  network: NetworkId,
  wallets: { address: Address; next: number }[],
): Promise<{ head: number; nonceLags: [string, number][]; balances: [string, bigint][] } | undefined> {
  const client = chains.client(network);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CHAIN_TIMEOUT_MS);
  });
  const answer = (async () => {
    const [head, pending, balances] = await Promise.all([
      client.getBlockNumber({ cacheTime: 0 }),
      inRpcBatches(wallets, 4, (w) => client.getTransactionCount({ address: w.address, blockTag: 'pending' })),
      inRpcBatches(wallets, 4, (w) => client.getBalance({ address: w.address })),
    ]);
    return {
      head: Number(head),
      nonceLags: wallets.map((w, i): [string, number] => [w.address, w.next - (pending[i] as number)]),
      balances: wallets.map((w, i): [string, bigint] => [w.address, balances[i] as bigint]),
    };
  })().catch(() => undefined);
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
