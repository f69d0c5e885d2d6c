// The interval-mining section of `npm run bench:tx` (also runs alone: `node --import tsx bench/intervalMining.ts`
// in apps/api). On a lab chain with 1 s blocks and a 30,000,000 gas limit, `finalized` 8 blocks behind the head,
// the platform (the API in this process, one job worker in its own) sends Counter increments from one system wallet
// per part, `maxInFlight` 2,000 on 1337 so that the limit of sent-and-not-mined is not what bounds it:
//   (a) capacity: a backlog of eight blocks' worth (from one increment's receipt gasUsed), accepted while this
//       process holds the wallet's send lock, then drained by the warm worker: the share of each block's gas limit
//       used by the platform's transactions while the backlog lasts (the first and last blocks excluded); target
//       median ≥ 97% and worst block ≥ 90%, the physical limit being 100%; the machine's CPU per transaction while
//       draining, by process, and the most the cores could send at that cost; then the same backlog sent by viem
//       alone, pre-signed, as a baseline of what the machine allows in the same run (intervalBaseline.ts), and the
//       ratio of the medians;
//   (b) latency: executions offered steadily at half the capacity measured in (a) for BENCH_INTERVAL_SECONDS (30):
//       accepted (the execute-transaction answer) → included, in blocks (block of inclusion − head at the answer)
//       and ms (until that block was first seen), of which the platform's part (accepted → sent, by the rows'
//       timestamps); target p50 ≤ 1 block, p99 ≤ 3;
//   (c) the same with a reorg every 10 s (depth 1–3, re-included or not, alternately) and one ×20 base-fee spike in
//       the middle; then, once everything has settled, the invariants: every accepted execution final on the
//       canonical chain exactly once (canonicalViolations), none lost, none on chain twice, no nonce gap.
// The ratio targets are printed (PASS / short) but do not fail the run (the machine is shared and noisy); a broken
// invariant of (c) does.
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { formatGwei, parseGwei } from 'viem';
import { tryAdvisoryLock } from '#api/jobs/advisoryLock.ts';
import { sendLock } from '#api/transactions/jobs.ts';
import { canonicalViolations } from '#api-testing/canonicalTruth.ts';
import { chainTallyOf, printTable, shorten, unfinished, waitUntilSettled } from '../scripts/lib/labChecks.ts';
import {
  type Accepted,
  acceptMany,
  type HeadWatcher,
  offerSteadily,
  settle,
  watchHeads,
} from '../scripts/lib/labLoad.ts';
import { type LabPlatform, startLabPlatform, statusCounts } from '../scripts/lib/labPlatform.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import { baselineShares, describeBaseline } from './intervalBaseline.ts';
import { measuredCpu, mostPerSecond, perUnitByProcess } from './machineCpu.ts';

const GAS_LIMIT = 30_000_000;
const BACKLOG_BLOCKS = 8;
const SECONDS = Number(process.env.BENCH_INTERVAL_SECONDS ?? 30);

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'short');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the section; answers false when an invariant of (c) broke. */
export async function intervalMiningSection(): Promise<boolean> {
  console.log(
    `\ninterval mining: 1 s blocks, gas limit ${fmt(GAS_LIMIT)}, finalized = head − 8; maxInFlight 2,000 on 1337 ` +
      `(load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores)`,
  );
  const platform = await startLabPlatform({
    name: 'bench-interval',
    chain: { blockTimeSeconds: 1, gasLimit: GAS_LIMIT, slotsInAnEpoch: 4 },
    // The defaults otherwise: a transaction priced out by the spike of (c) is re-priced as soon as the monitor sees
    // the risen base fee (under MAX_FEE_PER_GAS_GWEI_1337, 1,000 gwei).
    transactions: { maxInFlight: { 1337: 2_000 }, finalityPollMs: 500 },
  });
  const heads = watchHeads(platform.chain);
  try {
    await platform.startWorker();
    const capacity = await measureCapacity(platform);
    const rate = Math.max(1, Math.floor(capacity / 2));
    console.log(`\n(b) latency: ${fmt(rate)} executions/s offered for ${SECONDS} s (half the capacity measured)`);
    await measureLatency(platform, heads, rate);
    console.log(
      `\n(c) the same with a reorg every 10 s (depth 1–3, re-included or not) and a ×20 base-fee spike (of 1 gwei at least) half way`,
    );
    return await underFaults(platform, heads, rate);
  } finally {
    heads.stop();
    await platform.stop();
  }
}

/** (a): answers the capacity measured, in increments per second. */
async function measureCapacity(platform: LabPlatform): Promise<number> {
  const { db } = platform;
  const project = await platform.project('Capacity');
  // A warm-up of 200, then one more: the first increment writes the counter's slot from zero (20,000 gas more).
  await settle(platform, project, await acceptMany(platform, project, 200), 60_000);
  await settle(platform, project, await acceptMany(platform, project, 1), 30_000);
  const { rows: warm } = await db.query<{ gasUsed: string; gasLimit: string; walletId: number }>(
    `SELECT gas_used::text AS "gasUsed", gas_limit::text AS "gasLimit", system_wallet_id AS "walletId"
       FROM transactions WHERE project_id = $1 ORDER BY nonce DESC LIMIT 1`,
    [project.projectId],
  );
  const gasUsed = Number(warm[0]?.gasUsed);
  const fit = Math.floor(GAS_LIMIT / gasUsed);
  const backlog = BACKLOG_BLOCKS * fit;
  console.log(
    `  one increment: gasUsed ${fmt(gasUsed)}, gas limit set ${fmt(Number(warm[0]?.gasLimit))} → ${fmt(fit)} fit in a block`,
  );
  console.log(`\n(a) capacity: a backlog of ${fmt(backlog)} (${BACKLOG_BLOCKS} blocks' worth) accepted, then sent`);
  // The backlog waits while this process holds the wallet's send lock (the warm worker's sender retries meanwhile).
  const held = await tryAdvisoryLock(db, sendLock({ walletId: Number(warm[0]?.walletId), networkId: 1337 }));
  if (!held) throw new Error("could not hold the wallet's send lock");
  const ids = await acceptMany(platform, project, backlog);
  const started = Date.now();
  // Every process's CPU while the backlog drains: this one (the API, the bench's own polling), the worker, anvil,
  // PostgreSQL. What a transaction costs the machine bounds how many the cores can put in a block.
  const cpu = await measuredCpu(async () => {
    await held.release();
    await settle(platform, project, ids, 120_000);
  });
  const drainSeconds = (Date.now() - started) / 1000;
  const { rows } = await db.query<{ block: number; n: number; gas: string }>(
    `SELECT block_number::int AS block, count(*)::int AS n, sum(gas_used)::text AS gas FROM transactions
      WHERE id = ANY($1::uuid[]) GROUP BY block_number ORDER BY block_number`,
    [ids],
  );
  const byBlock = new Map(rows.map((r) => [r.block, r]));
  const first = rows[0]?.block ?? 0;
  const last = rows.at(-1)?.block ?? 0;
  const table: string[][] = [];
  const shares: number[] = [];
  const counts: number[] = [];
  for (let b = first; b <= last; b++) {
    const row = byBlock.get(b);
    const share = Number(row?.gas ?? 0) / GAS_LIMIT;
    const edge = b === first || b === last;
    if (!edge) {
      shares.push(share);
      counts.push(row?.n ?? 0);
    }
    table.push([
      String(b),
      fmt(row?.n ?? 0),
      fmt(Number(row?.gas ?? 0)),
      pct(share),
      edge ? '(partial: excluded)' : '',
    ]);
  }
  printTable(['block', 'platform tx', 'gas used', 'of the limit', ''], table);
  if (shares.length === 0) {
    console.log('  the backlog fit in two blocks: no full block to measure');
    return fit / 2;
  }
  const median = percentile(shares, 50);
  const min = Math.min(...shares);
  console.log(
    `  share of the block gas limit over ${shares.length} blocks: min ${pct(min)}, median ${pct(median)} ` +
      `(target median ≥ 97% and worst ≥ 90%: ${verdict(median >= 0.97 && min >= 0.9)}; physical limit 100%)`,
  );
  console.log(`  drained ${fmt(ids.length)} in ${drainSeconds.toFixed(1)} s = ${fmt(ids.length / drainSeconds)} tx/s`);
  const msPerTx = cpu.busyMs / ids.length;
  const most = mostPerSecond(msPerTx);
  console.log(
    `  machine CPU per transaction while draining: ${msPerTx.toFixed(2)} ms (${perUnitByProcess(cpu.byProcess, ids.length)}; ` +
      `the cores ${pct(cpu.busyShare)} busy): ${cpus().length} cores send at most about ${fmt(most)} tx/s at that cost, ` +
      `against the ${fmt(fit)} a full block a second takes${most < fit ? ': full blocks are out of reach at this cost' : ''}`,
  );
  const baselineCpu = await measuredCpu(() =>
    baselineShares(platform.chain, platform.counter, {
      count: backlog,
      gas: BigInt(warm[0]?.gasLimit ?? 0),
      gasLimit: GAS_LIMIT,
    }),
  );
  console.log(describeBaseline(baselineCpu.result, median));
  // anvil's part of the baseline: mining what it is sent, without the platform's gas estimates and look-ups.
  console.log(
    `  the baseline's machine CPU per transaction: ${(baselineCpu.busyMs / backlog).toFixed(2)} ms ` +
      `(${perUnitByProcess(baselineCpu.byProcess, backlog)})`,
  );
  return percentile(counts, 50);
}

/** (b): steady load, then latency from the answer to the block of inclusion. */
async function measureLatency(platform: LabPlatform, heads: HeadWatcher, rate: number) {
  const project = await platform.project('Latency');
  const tally = await offerSteadily(platform, [project], heads, { rate, durationMs: SECONDS * 1000 });
  await settle(
    platform,
    project,
    tally.accepted.map((a) => a.id),
    60_000,
  );
  reportLatency(await latencies(platform, heads, tally.accepted), tally, 'b');
}

/** (c): the steady load under reorgs and a spike, then the invariants once everything is final. */
async function underFaults(platform: LabPlatform, heads: HeadWatcher, rate: number): Promise<boolean> {
  const { chain, db } = platform;
  const project = await platform.project('Faults');
  const fromBlock = Number(await chain.head());
  const faults: string[] = [];
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s`;
  // A reorg every 10 s (depth 1, 2, 3, …; re-included, then not, alternately) and the spike half way.
  const half = SECONDS / 2;
  const events = [{ t: half % 10 === 0 ? half + 2 : half, spike: true }];
  for (let t = 10; t <= SECONDS; t += 10) events.push({ t, spike: false });
  events.sort((a, b) => a.t - b.t);
  const driver = (async () => {
    let reorgs = 0;
    for (const event of events) {
      await sleep(started + event.t * 1000 - Date.now());
      if (event.spike) {
        // Of 1 gwei at least: at half the capacity blocks are half full and the base fee may have fallen far
        // below the tip, where ×20 of it would price nothing out.
        const s = await chain.spikeBaseFee(20, { floor: parseGwei('1') });
        faults.push(`${at()}  base fee for the next block: ${formatGwei(s.from)} → ${formatGwei(s.to)} gwei`);
        continue;
      }
      const depth = 1 + (reorgs % 3);
      const reinclude = reorgs % 2 === 0 ? 'removed' : 'none';
      reorgs++;
      const r = await chain.reorg(depth, { reinclude });
      faults.push(
        `${at()}  reorg depth ${depth}, reinclude '${reinclude}': ${fmt(r.reincluded.length)} re-included, ${fmt(r.dropped.length)} dropped`,
      );
    }
  })();
  const tally = await offerSteadily(platform, [project], heads, { rate, durationMs: SECONDS * 1000 });
  await driver;
  for (const f of faults) console.log(`  ${f}`);
  const accepted = tally.accepted.map((a) => a.id);
  const finalStarted = Date.now();
  const allFinal = await waitUntilSettled(db, [project.projectId], 120_000);
  const { rows: bumped } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM transactions WHERE project_id = $1 AND fee_bumps > 0',
    [project.projectId],
  );
  console.log(
    `  ${allFinal ? 'every transaction settled' : 'NOT every transaction settled'} ${((Date.now() - finalStarted) / 1000).toFixed(1)} s after the load stopped: ${JSON.stringify(await statusCounts(db, [project.projectId]))}; ${fmt(bumped[0]?.n ?? 0)} re-sent with higher fees`,
  );
  reportLatency(await latencies(platform, heads, tally.accepted), tally, 'c');
  const violations = await canonicalViolations(db, platform.rpc, project.projectId, {
    contract: platform.counter,
    fromBlock,
  });
  const t = await chainTallyOf(platform, project, tally.accepted, fromBlock);
  const ok = violations.length === 0 && t.lost === 0 && t.duplicated === 0 && t.nonceGaps === 0 && t.notTerminal === 0;
  printTable(
    ['accepted', 'final on chain', 'lost', 'duplicated', 'nonce gaps', 'target', ''],
    [
      [
        fmt(accepted.length),
        fmt(t.final),
        fmt(t.lost),
        fmt(t.duplicated),
        fmt(t.nonceGaps),
        'all 0',
        ok ? 'PASS' : 'FAIL',
      ],
    ],
  );
  for (const line of await unfinished(db, [project.projectId])) console.error(`  ✖ ${line}`);
  if (violations.length > 0) {
    console.error(`  ✖ ${violations.length} canonical-truth violations:`);
    for (const v of violations.slice(0, 20)) console.error(`    - ${shorten(v)}`);
  }
  return ok;
}

/** For each accepted execution that is mined: blocks and ms from its answer to the block that holds it. */
async function latencies(platform: LabPlatform, heads: HeadWatcher, accepted: Accepted[]) {
  const { rows } = await platform.db.query<{ id: string; block: number | null; toPool: number | null }>(
    `SELECT id, block_number::int AS block,
            CASE WHEN fee_bumps = 0 THEN extract(epoch FROM broadcasted_at - created_at) * 1000 END AS "toPool"
       FROM transactions WHERE id = ANY($1::uuid[])`,
    [accepted.map((a) => a.id)],
  );
  const blockOf = new Map(rows.map((r) => [r.id, r.block]));
  const blocks: number[] = [];
  const ms: number[] = [];
  // Accepted → broadcast, by the rows' own timestamps (the platform's part of the latency; re-priced ones left out).
  const toPool = rows.flatMap((r) => (r.toPool === null ? [] : [Number(r.toPool)]));
  for (const a of accepted) {
    const block = blockOf.get(a.id);
    if (block == null) continue;
    blocks.push(block - a.headAtAnswer);
    const seen = heads.firstSeen(block);
    if (seen !== undefined) ms.push(seen - a.answeredAt);
  }
  return { blocks, ms, toPool };
}

function reportLatency(
  l: { blocks: number[]; ms: number[]; toPool: number[] },
  tally: { offered: number; accepted: Accepted[]; refused: Record<string, number> },
  part: string,
) {
  const p50 = percentile(l.blocks, 50);
  const p99 = percentile(l.blocks, 99);
  const refused = Object.entries(tally.refused).map(([k, n]) => `${k}: ${n}`);
  console.log(
    `  offered ${fmt(tally.offered)}, accepted ${fmt(tally.accepted.length)}${refused.length ? ` (${refused.join(', ')})` : ''}, mined ${fmt(l.blocks.length)}`,
  );
  const target = part === 'b' ? 'p50 ≤ 1, p99 ≤ 3' : '(none under faults)';
  const pass = part === 'b' ? verdict(p50 <= 1 && p99 <= 3) : '';
  printTable(
    ['accepted → included', 'p50', 'p99', 'max', 'target', ''],
    [
      ['blocks', String(p50), String(p99), String(Math.max(0, ...l.blocks)), target, pass],
      ['ms', fmt(percentile(l.ms, 50)), fmt(percentile(l.ms, 99)), fmt(Math.max(0, ...l.ms)), '', ''],
      [
        'ms until sent (of which)',
        fmt(percentile(l.toPool, 50)),
        fmt(percentile(l.toPool, 99)),
        fmt(Math.max(0, ...l.toPool)),
        '',
        '',
      ],
    ],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const deadline = setTimeout(() => {
    console.error('the interval-mining section did not finish within 5 minutes');
    process.exit(1);
  }, 300_000);
  deadline.unref();
  const ok = await intervalMiningSection().catch((error) => {
    console.error(error);
    return false;
  });
  process.exit(ok ? 0 : 1);
}
