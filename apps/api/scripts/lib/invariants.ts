// The invariants the reliability checks hold the platform to, read from the database, the chain and the webhook
// receiver once the load has stopped:
// - every accepted execution ends in exactly one final state, and is on chain at most once, under its nonce; the
//   wallet's nonces have no gap (nothing is stuck in the node's pool);
// - every event the chain has in the scanned range is recorded exactly once (compared with eth_getLogs);
// - every record reaches the receiver at least once, always under the same webhook-id (its record id);
// - every API is ready again and a new execution succeeds.

import { compileCounter, INCREMENTED_EVENT } from '@mountain/testkit/testContract.ts';
import { type Address, decodeEventLog, type Hex, toEventSelector } from 'viem';
import type { Cluster } from './cluster.ts';
import { blockNumber, call, rpc, type WebhookReceiver, type WorkloadProject } from './workload.ts';

export const FINAL = ['succeeded', 'reverted', 'broadcast-failed', 'monitor-failed'];

export interface Figures {
  accepted: number;
  /** Accepted (2xx) executions with no row, or whose row is not final after the wait. */
  lost: number;
  notFinal: number;
  byStatus: Record<string, number>;
  /** Transactions of our wallets on chain that belong to no row, or a row on chain more than once. */
  duplicateOnChain: number;
  nonceGaps: number;
  eventsOnChain: number;
  eventsRecorded: number;
  eventsMissing: number;
  eventsDuplicated: number;
  recordsUndelivered: number;
  /** Deliveries beyond the first per record (retries after a timeout, a killed worker, …). */
  redeliveries: number;
  webhookIdMismatches: number;
}

export interface InvariantReport {
  figures: Figures;
  violations: string[];
}

async function poll(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface ChainTx {
  hash: Hex;
  from: Address;
  to: Address | null;
  nonce: number;
}

/** Every transaction mined from `fromBlock` to the head, read in JSON-RPC batches. */
async function minedTransactions(url: string, fromBlock: number): Promise<ChainTx[]> {
  const head = await blockNumber(url);
  const out: ChainTx[] = [];
  for (let start = fromBlock; start <= head; start += 100) {
    const batch = [];
    for (let n = start; n <= Math.min(head, start + 99); n++) {
      batch.push({ jsonrpc: '2.0', id: n, method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, true] });
    }
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    const blocks = (await res.json()) as { result: { transactions: Record<string, string>[] } }[];
    for (const block of blocks) {
      for (const tx of block.result.transactions) {
        out.push({
          hash: tx.hash as Hex,
          from: (tx.from as string).toLowerCase() as Address,
          to: (tx.to?.toLowerCase() ?? null) as Address | null,
          nonce: Number(tx.nonce),
        });
      }
    }
  }
  return out;
}

export async function checkInvariants(
  cluster: Cluster,
  projects: WorkloadProject[],
  accepted: Map<string, number>,
  receiver: WebhookReceiver,
  options: { settleMs?: number; fromBlock?: number; exactlyOnceDelivery?: boolean } = {},
): Promise<InvariantReport> {
  const settleMs = options.settleMs ?? 90_000;
  const violations: string[] = [];
  const { db } = cluster;
  const projectIds = projects.map((p) => p.projectId);

  // 1. Executions: every row final, every accepted one present.
  const countNotFinal = async () =>
    (
      await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM transactions WHERE project_id = ANY($1) AND NOT (status = ANY($2))',
        [projectIds, FINAL],
      )
    ).rows[0]?.n ?? 0;
  await poll(async () => (await countNotFinal()) === 0, settleMs);
  const { rows } = await db.query<{
    id: string;
    project_id: number;
    status: string;
    nonce: number | null;
    hash: Hex | null;
    previous: Hex[];
  }>(
    `SELECT id, project_id, status, nonce, transaction_hash AS hash, previous_hashes AS previous
       FROM transactions WHERE project_id = ANY($1)`,
    [projectIds],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  let lost = 0;
  let notFinal = 0;
  for (const [id] of accepted) {
    const row = byId.get(id);
    if (!row) lost++;
    else if (!FINAL.includes(row.status)) notFinal++;
  }
  if (lost > 0) violations.push(`${lost} accepted executions have no row`);
  const allNotFinal = rows.filter((r) => !FINAL.includes(r.status));
  if (allNotFinal.length > 0) {
    violations.push(
      `${allNotFinal.length} transactions are not final after ${settleMs} ms (${[...new Set(allNotFinal.map((r) => r.status))].join(', ')})`,
    );
  }
  const byStatus: Record<string, number> = {};
  for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  for (const bad of ['broadcast-failed', 'monitor-failed', 'reverted']) {
    if (byStatus[bad]) violations.push(`${byStatus[bad]} transactions ended ${bad}`);
  }

  // 2. On chain: each row once, under its nonce; nothing else from our wallets but nonce fillers; no gaps.
  const mined = await minedTransactions(cluster.anvilUrl, options.fromBlock ?? 0);
  let duplicateOnChain = 0;
  let nonceGaps = 0;
  for (const project of projects) {
    const wallet = project.wallet.toLowerCase();
    const ours = mined.filter((t) => t.from === wallet);
    const projectRows = rows.filter((r) => r.project_id === project.projectId);
    const hashToRow = new Map<string, (typeof rows)[number]>();
    for (const r of projectRows) for (const h of [r.hash, ...r.previous]) if (h) hashToRow.set(h.toLowerCase(), r);
    const seenRows = new Map<string, number>();
    for (const tx of ours) {
      if (tx.to === wallet) continue; // a 0-value self-transfer filling a released nonce
      const row = hashToRow.get(tx.hash.toLowerCase());
      if (!row) {
        duplicateOnChain++;
        violations.push(`project ${project.projectId}: on-chain ${tx.hash} (nonce ${tx.nonce}) belongs to no row`);
        continue;
      }
      seenRows.set(row.id, (seenRows.get(row.id) ?? 0) + 1);
      if (row.nonce !== tx.nonce)
        violations.push(`row ${row.id}: nonce ${row.nonce} in the database, ${tx.nonce} on chain`);
    }
    for (const [id, n] of seenRows) {
      if (n > 1) {
        duplicateOnChain += n - 1;
        violations.push(`row ${id} is on chain ${n} times`);
      }
    }
    for (const r of projectRows) {
      const onChain = seenRows.get(r.id) ?? 0;
      if ((r.status === 'succeeded' || r.status === 'reverted') && onChain !== 1) {
        violations.push(`row ${r.id} is ${r.status} but on chain ${onChain} times`);
      }
    }
    const latest = Number(await rpc<string>(cluster.anvilUrl, 'eth_getTransactionCount', [project.wallet, 'latest']));
    const pending = Number(await rpc<string>(cluster.anvilUrl, 'eth_getTransactionCount', [project.wallet, 'pending']));
    if (pending !== latest) {
      nonceGaps += pending - latest;
      violations.push(`wallet ${project.wallet}: ${pending - latest} transactions stuck in the pool (nonce gap)`);
    }
    const usedNonces = new Set(ours.map((t) => t.nonce));
    for (let n = 0; n < latest; n++) {
      if (!usedNonces.has(n)) {
        nonceGaps++;
        violations.push(`wallet ${project.wallet}: nonce ${n} unused`);
      }
    }
    const beyond = projectRows.filter((r) => r.nonce !== null && r.nonce >= latest);
    if (beyond.length > 0) {
      nonceGaps += beyond.length;
      // What the node holds for the wallet: transactions waiting behind a missing nonce show up as queued.
      const pool = await rpc<{ pending: Record<string, unknown>; queued: Record<string, unknown> }>(
        cluster.anvilUrl,
        'txpool_inspect',
      ).catch(() => undefined);
      const inPool = (kind: 'pending' | 'queued') =>
        Object.entries(pool?.[kind] ?? {}).find(([a]) => a.toLowerCase() === wallet)?.[1] as object | undefined;
      violations.push(
        `wallet ${project.wallet}: ${beyond.length} rows (${beyond.map((r) => `${r.status} nonce ${r.nonce}`).join(', ')}) hold nonces at or beyond the chain's ${latest}; the node's pool for it: pending ${Object.keys(inPool('pending') ?? {}).join(' ') || 'none'}, queued ${Object.keys(inPool('queued') ?? {}).join(' ') || 'none'}`,
      );
    }
  }

  // 3. Events: the scanned range against eth_getLogs, each exactly once.
  const head = await blockNumber(cluster.anvilUrl);
  const scannedTo = async (id: string) =>
    (
      await db.query<{ last: number | null }>(
        'SELECT last_scanned_block AS last FROM event_notifier_subscriptions WHERE id = $1',
        [id],
      )
    ).rows[0]?.last ?? -1;
  await poll(async () => {
    for (const p of projects) if ((await scannedTo(p.subscriptionId)) < head) return false;
    return true;
  }, settleMs);
  const abi = compileCounter().abi;
  const topic = toEventSelector(INCREMENTED_EVENT.replace(/^event /, ''));
  let eventsOnChain = 0;
  let eventsRecorded = 0;
  let eventsMissing = 0;
  let eventsDuplicated = 0;
  const recordIds: string[] = [];
  for (const p of projects) {
    const last = await scannedTo(p.subscriptionId);
    if (last < head) violations.push(`subscription ${p.subscriptionId} scanned to ${last}, head is ${head}`);
    const logs = await rpc<{ transactionHash: string; logIndex: string; data: Hex; topics: Hex[] }[]>(
      cluster.anvilUrl,
      'eth_getLogs',
      [
        {
          address: p.counter,
          topics: [topic],
          fromBlock: `0x${p.initialBlock.toString(16)}`,
          toBlock: `0x${last.toString(16)}`,
        },
      ],
    );
    for (const log of logs) decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
    const records = await db.query<{ id: string; hash: string; log_index: number }>(
      'SELECT id, transaction_hash AS hash, log_index FROM event_notifier_records WHERE subscription_id = $1',
      [p.subscriptionId],
    );
    eventsOnChain += logs.length;
    eventsRecorded += records.rows.length;
    const recorded = new Map<string, number>();
    for (const r of records.rows) {
      const key = `${r.hash.toLowerCase()}:${r.log_index}`;
      recorded.set(key, (recorded.get(key) ?? 0) + 1);
      recordIds.push(r.id);
    }
    const onChain = new Set(logs.map((l) => `${l.transactionHash.toLowerCase()}:${Number(l.logIndex)}`));
    for (const key of onChain) if (!recorded.has(key)) eventsMissing++;
    for (const [key, n] of recorded) {
      if (n > 1) eventsDuplicated += n - 1;
      if (!onChain.has(key)) eventsDuplicated++;
    }
    // Each succeeded increment emits one event: the chain agrees with the transactions.
    const succeeded = rows.filter((r) => r.project_id === p.projectId && r.status === 'succeeded').length;
    if (logs.length !== succeeded) {
      violations.push(`project ${p.projectId}: ${succeeded} succeeded increments but ${logs.length} events on chain`);
    }
  }
  if (eventsMissing) violations.push(`${eventsMissing} events on chain were not recorded`);
  if (eventsDuplicated) violations.push(`${eventsDuplicated} records are duplicates or not on chain`);

  // 4. Deliveries: every record answered 2xx at least once, always under its own id.
  await poll(async () => {
    const delivered = receiver.delivered();
    return recordIds.every((id) => delivered.has(id));
  }, settleMs);
  const delivered = receiver.delivered();
  const recordsUndelivered = recordIds.filter((id) => !delivered.has(id)).length;
  if (recordsUndelivered) violations.push(`${recordsUndelivered} records never reached the receiver`);
  const { rows: statusRows } = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM event_notifier_records WHERE subscription_id = ANY($1::uuid[]) GROUP BY status`,
    [projects.map((p) => p.subscriptionId)],
  );
  const notNotified = statusRows.filter((r) => r.status !== 'notified').reduce((s, r) => s + r.n, 0);
  if (notNotified && !recordsUndelivered) {
    // Delivered, but the outcome was not stored yet: give it a moment.
    await poll(
      async () =>
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM event_notifier_records WHERE subscription_id = ANY($1::uuid[]) AND status <> 'notified'`,
            [projects.map((p) => p.subscriptionId)],
          )
        ).rows[0]?.n === 0,
      30_000,
    );
  }
  const stillOpen = (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM event_notifier_records WHERE subscription_id = ANY($1::uuid[]) AND status <> 'notified'`,
      [projects.map((p) => p.subscriptionId)],
    )
  ).rows[0]?.n;
  if (stillOpen) violations.push(`${stillOpen} records are not notified`);
  const known = new Set(recordIds);
  let webhookIdMismatches = 0;
  const perId = new Map<string, number>();
  for (const r of receiver.received) {
    if (r.recordId !== r.webhookId || !known.has(r.webhookId)) webhookIdMismatches++;
    perId.set(r.webhookId, (perId.get(r.webhookId) ?? 0) + 1);
  }
  const redeliveries = [...perId.values()].reduce((s, n) => s + n - 1, 0);
  if (webhookIdMismatches) violations.push(`${webhookIdMismatches} webhooks whose webhook-id is not their record id`);
  if (options.exactlyOnceDelivery && redeliveries) {
    violations.push(`${redeliveries} records were sent more than once although the receiver always answered 200`);
  }

  return {
    figures: {
      accepted: accepted.size,
      lost,
      notFinal,
      byStatus,
      duplicateOnChain,
      nonceGaps,
      eventsOnChain,
      eventsRecorded,
      eventsMissing,
      eventsDuplicated,
      recordsUndelivered,
      redeliveries,
      webhookIdMismatches,
    },
    violations,
  };
}

/** Every API ready, and a new execution through each succeeds: recovery needed no manual step. */
export async function checkRecovery(cluster: Cluster, project: WorkloadProject, timeoutMs = 60_000): Promise<string[]> {
  const violations: string[] = [];
  for (const p of cluster.all()) {
    if (!p.running()) violations.push(`${p.name} is no longer running:\n${p.log().trim()}`);
  }
  try {
    await cluster.waitReady(timeoutMs);
  } catch (error) {
    violations.push(`not ready: ${(error as Error).message}`);
    return violations;
  }
  for (const api of cluster.apis) {
    const res = await call(api.url as string, project.apiKey, 'POST', '/transaction/execute-transaction', {
      contractActivatedFunctionId: project.functionId,
      functionArgs: ['1'],
      idempotencyKey: `recovery-${api.name}-${Date.now()}`,
    });
    if (res.status !== 201) {
      violations.push(`${api.name}: execute-transaction after recovery answered ${res.status}`);
      continue;
    }
    const id = res.body.transaction.id as string;
    const ok = await poll(async () => {
      const t = await call(
        api.url as string,
        project.apiKey,
        'GET',
        `/transaction/get-transaction?transactionId=${id}`,
      );
      return t.body?.transaction?.status === 'succeeded';
    }, timeoutMs);
    if (!ok) violations.push(`${api.name}: the execution after recovery did not succeed within ${timeoutMs} ms`);
  }
  return violations;
}

export function printFigures(title: string, f: Figures): void {
  console.log(`\n${title}`);
  console.log(`  executions accepted (2xx)      ${f.accepted}`);
  console.log(`  lost: ${f.lost}   not final: ${f.notFinal}   final states: ${JSON.stringify(f.byStatus)}`);
  console.log(`  duplicate tx on chain: ${f.duplicateOnChain}   nonce gaps: ${f.nonceGaps}`);
  console.log(
    `  events on chain ${f.eventsOnChain}, recorded ${f.eventsRecorded}: missing ${f.eventsMissing}, duplicated ${f.eventsDuplicated}`,
  );
  console.log(
    `  records undelivered: ${f.recordsUndelivered}   redeliveries: ${f.redeliveries}   webhook-id mismatches: ${f.webhookIdMismatches}`,
  );
}
