// npm run chaos — a mixed scenario on the chain lab, then the platform's invariants against the canonical chain.
//
// A lab chain mining a block a second (`finalized` 12 blocks behind the head, deeper than any reorg below) behind a
// provider-like proxy (latency, a rate limit of CHAOS_RPC_RATE calls/s (100) answered HTTP 429, a geth-like pool
// taking 16 transactions per sender, a node that sometimes answers from 2 blocks behind); the platform (the API,
// one job worker) with several projects, each its own system wallet, executing Counter increments steadily
// (CHAOS_PROJECTS 4, CHAOS_RATE 20/s in all), one offer in CHAOS_TRANSFER_EVERY (10; 0: none) being instead a
// native transfer of 1,000 wei to the project's payee (an account without code, imported with ABI
// `receive() external payable` and its receive() activated with generous limits). The last project's wallets are kept in a simulated Fireblocks workspace
// (packages/testkit/src/fireblocks, parallel transactions allowed), which signs and broadcasts its transactions itself
// (CHAOS_FIREBLOCKS=0: none); the one before it signs with a key in a simulated AWS KMS (packages/testkit/src/awsKms)
// answering each Sign 30 ms late and throttling now and then (CHAOS_KMS=0: none). Meanwhile a driver draws a fault
// every 3–7 s from a
// seeded generator (CHAOS_SEED, printed): a reorg of depth 1–10 with or without re-inclusion, a platform
// transaction dropped from the node's pool, a ×10–×50 base-fee spike, a provider outage of 2–5 s, a lagging node,
// a speed-up (×1.1–×4) asked for a broadcast transaction of any project, a cancel (cancel-transaction) asked for a
// waiting transaction of any project (not sent yet, held by Fireblocks, or sent: Fireblocks replaces its own).
// Then the faults stop and, once every transaction has settled (bounded), per project: every accepted execution
// present and final on the canonical chain exactly once, or cancelled (never sent, or its nonce taken on chain by a
// 0-value transfer to the wallet itself, also final) (canonicalViolations); the wallet's calls to the Counter exactly
// the succeeded and reverted rows' hashes, its transfers to the payee exactly the transfer rows', the payee's balance
// exactly the succeeded transfers' sum; none left non-terminal (cancelling counts as waiting), no nonce gap.
// Prints the faults and a summary; exits 1 on a broken invariant. CHAOS_SECONDS (180) bounds the load; a hard
// deadline stops the run, and everything it started is stopped even after a failure.
import { randomInt } from 'node:crypto';
import { canonicalViolations } from '#api-testing/canonicalTruth.ts';
import { faultInjector, seededRandom } from './lib/chaosFaults.ts';
import { hardDeadline } from './lib/deadline.ts';
import { chainTallyOf, printTable, shorten, unfinished, waitUntilSettled } from './lib/labChecks.ts';
import { offerSteadily } from './lib/labLoad.ts';
import { type LabPlatform, type LabProject, startLabPlatform, statusCounts } from './lib/labPlatform.ts';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 180);
const SEED = Number(process.env.CHAOS_SEED ?? randomInt(2 ** 31));
const PROJECTS = Number(process.env.CHAOS_PROJECTS ?? 4);
const RATE = Number(process.env.CHAOS_RATE ?? 20);
const FIREBLOCKS = process.env.CHAOS_FIREBLOCKS !== '0';
const KMS = process.env.CHAOS_KMS !== '0';
const TRANSFER_EVERY = Number(process.env.CHAOS_TRANSFER_EVERY ?? 10);
/** The wei of each native transfer to a payee. */
const TRANSFER_VALUE = 1_000n;
const SETTLE_MS = 180_000;
/** The provider's rate limit (calls per second, burst): modest, far above what the platform needs here. */
const RATE_LIMIT = { requestsPerSecond: Number(process.env.CHAOS_RPC_RATE ?? 100), burst: 150 };

const started = Date.now();
const at = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => n.toLocaleString('en-US');

let platform: LabPlatform | undefined;
const cleanUp = async () => {
  const p = platform;
  platform = undefined;
  await p?.stop();
};
hardDeadline('chaos', SECONDS * 1000 + SETTLE_MS + 180_000, cleanUp);

console.log(
  `chaos: ${SECONDS} s, seed ${SEED} (CHAOS_SEED), ${PROJECTS} projects, ${RATE} executions/s in all (CHAOS_SECONDS, CHAOS_PROJECTS, CHAOS_RATE, CHAOS_RPC_RATE)`,
);
let exitCode = 1;
try {
  platform = await startLabPlatform({
    name: 'chaos',
    chain: { blockTimeSeconds: 1, slotsInAnEpoch: 6 },
    provider: {
      latency: { ms: 20, jitterMs: 30 },
      rateLimit: { ...RATE_LIMIT, style: 'alchemy' },
      txpool: { accountSlots: 16 },
      lag: { blocks: 2, probability: 0.02 },
    },
    transactions: {},
    fireblocks: FIREBLOCKS,
    ...(KMS ? { kms: { signLatencyMs: 30 } } : {}),
  });
  const { chain, db } = platform;
  const provider = platform.provider as NonNullable<LabPlatform['provider']>;
  console.log(
    `lab chain (anvil pid ${chain.pid}) behind the provider proxy: latency 20–50 ms, rate limit ${RATE_LIMIT.requestsPerSecond}/s ` +
      `(burst ${RATE_LIMIT.burst}, HTTP 429), 16 slots per sender, 2% of requests from a node 2 blocks behind\n`,
  );
  await platform.startWorker();
  const projects: LabProject[] = [];
  for (let i = 0; i < PROJECTS; i++) {
    const fireblocks = FIREBLOCKS && i === PROJECTS - 1;
    const kms = KMS && i === PROJECTS - (FIREBLOCKS ? 2 : 1) && i > 0;
    const walletType = fireblocks ? 'fireblocks' : kms ? 'aws-kms' : undefined;
    projects.push(
      await platform.project(`Chaos ${i + 1}${fireblocks ? ' (Fireblocks)' : kms ? ' (AWS KMS)' : ''}`, walletType),
    );
    if (walletType) console.log(`project ${projects.at(-1)?.projectId}: ${walletType} wallets (simulated)`);
    if (TRANSFER_EVERY > 0) await platform.payee(projects.at(-1) as LabProject);
  }
  console.log('');
  const fromBlock = Number(await chain.head());
  // Funded once, deeper than any reorg below: on 1337 the platform tops a wallet up by anvil_setBalance, which a
  // reorg under it would take back ("insufficient funds"), a development-chain artefact this run is not about.
  for (const p of projects) await chain.rpc('anvil_setBalance', [p.wallet, `0x${(10n ** 24n).toString(16)}`]);
  while (Number(await chain.head()) < fromBlock + 12) await sleep(500);
  const loadStarted = Date.now();

  const stopLoad = new AbortController();
  const load = offerSteadily(platform, projects, undefined, {
    rate: RATE,
    durationMs: SECONDS * 1000,
    signal: stopLoad.signal,
    ...(TRANSFER_EVERY > 0 ? { transfers: { every: TRANSFER_EVERY, value: TRANSFER_VALUE } } : {}),
  });
  const random = seededRandom(SEED);
  const kmsRandom = seededRandom(SEED + 1);
  const injector = faultInjector(
    random,
    chain,
    provider,
    projects.map((p) => p.wallet),
    async (pick, multiplier) => {
      // A waiting transaction of any project (a Fireblocks one is replaced by Fireblocks, at its nonce).
      const { rows } = await db.query<{ id: string; projectId: number }>(
        `SELECT id, project_id AS "projectId" FROM transactions
          WHERE status = 'broadcasted' AND project_id = ANY($1::int[])
          ORDER BY id LIMIT 200`,
        [projects.map((p) => p.projectId)],
      );
      const row = rows[Math.floor(pick * rows.length)];
      const project = projects.find((p) => p.projectId === row?.projectId);
      if (!row || !project) return { done: false, what: 'speed-up: no waiting transaction (skipped)' };
      const answer = await (platform as LabPlatform).speedUp(project, row.id, multiplier);
      return answer.status === 200
        ? { done: true, what: `speed-up ×${multiplier} of ${row.id.slice(0, 8)}… (project ${project.projectId})` }
        : {
            done: false,
            what: `speed-up of ${row.id.slice(0, 8)}…: ${answer.status} ${answer.code} (mined meanwhile; skipped)`,
          };
    },
    async (pick) => {
      // A waiting transaction of any project: not sent yet, held by Fireblocks, or sent.
      const { rows } = await db.query<{ id: string; projectId: number; status: string; value: string }>(
        `SELECT id, project_id AS "projectId", status, value::text AS value FROM transactions
          WHERE status IN ('created', 'processing', 'broadcasted')
            AND project_id = ANY($1::int[])
          ORDER BY id LIMIT 200`,
        [projects.map((p) => p.projectId)],
      );
      // Two cancels in three take back a sent (or Fireblocks-held) one, if any: under load most waiting rows are unsent.
      const sent = rows.filter((r) => r.status !== 'created');
      const from = sent.length > 0 && pick < 2 / 3 ? sent : rows;
      const row = from[Math.floor(((pick * 3) % 1) * from.length)];
      const project = projects.find((p) => p.projectId === row?.projectId);
      if (!row || !project) return { done: false, what: 'cancel: no waiting transaction (skipped)' };
      const answer = await (platform as LabPlatform).cancel(project, row.id);
      const which = `${row.id.slice(0, 8)}… (${row.status}${row.value !== '0' ? `, ${row.value} wei` : ''}, project ${project.projectId})`;
      return answer.status === 200
        ? { done: true, what: `cancel of ${which}: ${answer.transactionStatus}` }
        : { done: false, what: `cancel of ${which}: ${answer.status} ${answer.code} (moved on meanwhile; skipped)` };
    },
  );
  const counts: Record<string, number> = {};
  const loadEnds = loadStarted + SECONDS * 1000;
  let progressAt = Date.now();
  while (Date.now() < loadEnds - 3_000) {
    await sleep(Math.min(3_000 + random() * 4_000, loadEnds - Date.now()));
    if (Date.now() >= loadEnds - 3_000) break;
    try {
      const fault = await injector.next();
      if (fault.done) counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
      else counts[`${fault.kind} skipped`] = (counts[`${fault.kind} skipped`] ?? 0) + 1;
      console.log(`${at()}  ${fault.what}`);
    } catch (error) {
      counts.failed = (counts.failed ?? 0) + 1;
      console.log(`${at()}  a fault could not be injected: ${shorten((error as Error).message, 160)}`);
      await provider.up().catch(() => {});
    }
    // KMS throttles a burst of Sign requests now and then (its own generator: the chain's faults stay those of the seed).
    if (platform.kms && kmsRandom() < 0.3) {
      platform.kms.faults.set({ throttling: { count: 8, action: 'Sign' } });
      counts['kms throttling'] = (counts['kms throttling'] ?? 0) + 1;
      console.log(`${at()}  AWS KMS throttles the next 8 Sign requests`);
    }
    if (Date.now() - progressAt > 30_000) {
      progressAt = Date.now();
      const ids = projects.map((p) => p.projectId);
      console.log(`${at()}  … transactions: ${JSON.stringify(await statusCounts(db, ids))}`);
    }
  }
  stopLoad.abort();
  const tally = await load;
  console.log(`${at()}  load stopped; faults stopped; waiting for every transaction to settle`);

  const ids = projects.map((p) => p.projectId);
  const settled = await waitUntilSettled(db, ids, SETTLE_MS);
  console.log(
    `${at()}  ${settled ? 'every transaction settled' : `NOT every transaction settled after ${SETTLE_MS / 1000} s`}: ${JSON.stringify(await statusCounts(db, ids))}`,
  );
  // Why, at once: the checks below read the whole chain through the provider and can take minutes.
  for (const line of await unfinished(db, ids)) console.log(`  ${line}`);
  if (!settled && platform.fireblocks) await describeFireblocksBacklog(platform);

  const violations: string[] = [];
  const rows: string[][] = [];
  for (const project of projects) {
    const accepted = tally.accepted.filter((a) => a.projectId === project.projectId);
    const t = await chainTallyOf(platform, project, accepted, fromBlock);
    const broken = await canonicalViolations(db, platform.rpc, project.projectId, {
      contract: platform.counter,
      fromBlock,
      ...(project.payee ? { recipient: { address: project.payee.address } } : {}),
    });
    const problems = [
      ...broken.map((v) => `project ${project.projectId}: ${v}`),
      ...(t.missing ? [`project ${project.projectId}: ${t.missing} accepted executions have no transaction`] : []),
      ...(t.notTerminal ? [`project ${project.projectId}: ${t.notTerminal} transactions not terminal`] : []),
      ...(t.lost ? [`project ${project.projectId}: ${t.lost} accepted executions not final on chain`] : []),
      ...(t.duplicated ? [`project ${project.projectId}: ${t.duplicated} transactions on chain twice`] : []),
      ...(t.nonceGaps ? [`project ${project.projectId}: ${t.nonceGaps} nonce gaps on chain`] : []),
    ];
    violations.push(...problems);
    rows.push([
      String(project.projectId),
      fmt(accepted.length),
      fmt(accepted.filter((a) => a.value !== undefined).length),
      fmt(t.final),
      fmt(t.transfers),
      fmt(t.cancelled),
      fmt(t.notTerminal),
      fmt(t.missing),
      fmt(t.lost),
      fmt(t.duplicated),
      fmt(t.nonceGaps),
      fmt(broken.length),
    ]);
  }

  console.log(`\nfaults injected (seed ${SEED}):`);
  printTable(
    ['fault', 'count'],
    Object.entries(counts).map(([k, n]) => [k, fmt(n)]),
  );
  const refused = Object.entries(tally.refused).map(([k, n]) => `${k}: ${n}`);
  console.log(
    `\nexecutions offered ${fmt(tally.offered)}, accepted ${fmt(tally.accepted.length)}${refused.length ? ` (not accepted: ${refused.join(', ')})` : ''}`,
  );
  const { rows: bumped } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM transactions WHERE project_id = ANY($1) AND fee_bumps > 0',
    [ids],
  );
  const { rows: cancels } = await db.query<{ unsent: number; onChain: number; notCancelled: number }>(
    `SELECT count(*) FILTER (WHERE status = 'cancelled' AND transaction_hash IS NULL)::int AS unsent,
            count(*) FILTER (WHERE status = 'cancelled' AND transaction_hash IS NOT NULL)::int AS "onChain",
            count(*) FILTER (WHERE status <> 'cancelled' AND cancel_requested_at IS NOT NULL)::int AS "notCancelled"
       FROM transactions WHERE project_id = ANY($1)`,
    [ids],
  );
  const c = cancels[0];
  console.log(
    `cancelled: ${fmt(c?.unsent ?? 0)} before they were sent, ${fmt(c?.onChain ?? 0)} by a transfer to the wallet itself; ${fmt(c?.notCancelled ?? 0)} mined before their cancel`,
  );
  console.log(`re-sent with higher fees (after a spike, or waiting too long): ${fmt(bumped[0]?.n ?? 0)}`);
  const served = Object.values(provider.stats.served).reduce((s, n) => s + n, 0);
  console.log(
    `provider: ${fmt(served)} calls served (${fmt(Math.round(served / ((Date.now() - started) / 1000)))}/s), refusals ${JSON.stringify(provider.stats.refusals)}, ${fmt(provider.stats.lagged)} requests from a lagging node\n`,
  );
  printTable(
    [
      'project',
      'accepted',
      'transfers',
      'final on chain',
      'transfers final',
      'cancelled',
      'not terminal',
      'missing',
      'lost',
      'duplicated',
      'nonce gaps',
      'violations',
    ],
    rows,
  );
  if (violations.length > 0) {
    for (const line of await unfinished(db, ids)) console.error(`  ✖ ${line}`);
    // What the simulated Fireblocks workspace holds unfinished, oldest first (its queue is one per vault and asset).
    const held = (platform?.fireblocks?.transactions() ?? []).filter(
      (t) => !['COMPLETED', 'FAILED', 'REJECTED', 'BLOCKED', 'CANCELLED'].includes(t.status),
    );
    for (const t of held.slice(0, 3)) {
      console.error(
        `  ✖ Fireblocks ${t.id} ${t.status}/${t.subStatus || '-'} nonce ${t.nonce ?? '-'} hash ${t.txHash || '-'}`,
      );
    }
    if (held.length > 0) console.error(`  ✖ Fireblocks holds ${held.length} unfinished`);
    console.error(`\n✖ ${violations.length} violations:`);
    for (const v of violations.slice(0, 30)) console.error(`  - ${shorten(v)}`);
  } else {
    console.log('\n✔ no invariant violated');
    exitCode = 0;
  }
  console.log(`rerun: CHAOS_SEED=${SEED} CHAOS_SECONDS=${SECONDS} npm run chaos`);
} catch (error) {
  console.error(error);
} finally {
  await cleanUp();
}
process.exit(exitCode);

/** The simulated workspace's unfinished transactions against its vault accounts' nonces on chain and in the pool. */
async function describeFireblocksBacklog(lab: LabPlatform): Promise<void> {
  const sim = lab.fireblocks as NonNullable<LabPlatform['fireblocks']>;
  const held = sim
    .transactions()
    .filter((t) => !['COMPLETED', 'FAILED', 'REJECTED', 'BLOCKED', 'CANCELLED'].includes(t.status));
  for (const vault of sim.vaultAccounts()) {
    const mine = held.filter((t) => t.source.id === vault.id);
    if (mine.length === 0) continue;
    const nonces = mine.flatMap((t) => (t.nonce === undefined ? [] : [Number(t.nonce)])).sort((a, b) => a - b);
    const [latest, pending] = await Promise.all(
      ['latest', 'pending'].map(async (tag) =>
        Number(await lab.rpc<string>('eth_getTransactionCount', [vault.address, tag])),
      ),
    );
    const pool = await lab.rpc<{
      pending: Record<string, Record<string, unknown>>;
      queued: Record<string, Record<string, unknown>>;
    }>('txpool_content');
    const inPool = (kind: 'pending' | 'queued') =>
      Object.keys(Object.entries(pool[kind]).find(([a]) => a.toLowerCase() === vault.address.toLowerCase())?.[1] ?? {})
        .length;
    const statuses: Record<string, number> = {};
    for (const t of mine) statuses[t.status] = (statuses[t.status] ?? 0) + 1;
    console.log(
      `  Fireblocks vault ${vault.id}: ${mine.length} unfinished ${JSON.stringify(statuses)}, nonces ${nonces[0] ?? '-'}…${nonces.at(-1) ?? '-'}; on chain latest ${latest}, pending ${pending}; node pool ${inPool('pending')} pending, ${inPool('queued')} queued`,
    );
  }
}
