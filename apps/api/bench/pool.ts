// npm run bench:pool: throughput of one project through a pool of wallets under a real network's pool rules. A lab
// chain with 2 s blocks and a gas limit that one wallet cannot fill, behind two provider-like endpoints that keep
// geth's pool rules (16 executable transactions per sender; MAX_IN_FLIGHT_1337 16, the platform's default for a
// real network), the API in this process and one job worker in its own. For pools of 1, 8 and 32 wallets: a backlog
// of BENCH_POOL_BLOCKS (10) blocks' worth at the ideal rate is accepted with the worker stopped, then the worker
// drains it. Each pool's rate (its platform transactions per block, median over the blocks between the first and
// the last, ÷ block time) is set next to its ideal in the same run, min(wallets × 16, gas limit ÷ gas per
// transaction) ÷ block time; target ≥ 0.9 of it at every size. Then the pool of 8 again with one of the two
// endpoints killed half way: every row final on the canonical chain exactly once (canonicalViolations: none lost,
// none sent twice) and no block in which the pool sent nothing while rows waited. Machine CPU per transaction by
// process while draining, as the other benches print it.
import { cpus, loadavg } from 'node:os';
import { type Figure, recordBench } from '@mountain/testkit/benchResults.ts';
import { canonicalViolations } from '#api-testing/canonicalTruth.ts';
import { printTable } from '../scripts/lib/labChecks.ts';
import { acceptMany, settle } from '../scripts/lib/labLoad.ts';
import { type LabPlatform, type LabProject, startLabPlatform } from '../scripts/lib/labPlatform.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import { measuredCpu, mostPerSecond, perUnitByProcess } from './machineCpu.ts';

const BLOCK_SECONDS = 2;
const GAS_LIMIT = 10_000_000;
const SLOTS = 16;
const BLOCKS = Number(process.env.BENCH_POOL_BLOCKS ?? 10);
const SIZES = [1, 8, 32];
const TARGET = 0.9;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? 'PASS' : 'short');

interface Run {
  wallets: number;
  ideal: number;
  rate: number;
  idleBlocks: number;
  msPerTx: number;
  byProcess: string;
}

console.log(
  `pool: ${BLOCK_SECONDS} s blocks, gas limit ${fmt(GAS_LIMIT)}, ${SLOTS} in flight per wallet, two endpoints, ` +
    `${Math.max(...SIZES)} runners sending and monitoring (load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores)`,
);
const platform = await startLabPlatform({
  name: 'bench-pool',
  chain: { blockTimeSeconds: BLOCK_SECONDS, gasLimit: GAS_LIMIT, slotsInAnEpoch: 2 },
  provider: { txpool: { accountSlots: SLOTS } },
  endpoints: 2,
  // Each wallet with transactions in flight keeps a runner of the sending and of the monitoring lane busy: the
  // largest pool's worth (WORKER_CONCURRENCY_SENDING and _MONITORING, as the wallet pools page says to set them).
  concurrency: { sending: Math.max(...SIZES), monitoring: Math.max(...SIZES) },
  transactions: { maxInFlight: { 1337: SLOTS }, finalityPollMs: 500 },
});
let broken: string[] = [];
const runs: Run[] = [];
try {
  // The first increment writes the counter's slot from zero: warm it, and learn what one costs.
  const warm = await platform.project('Warm-up');
  await platform.startWorker();
  await settle(platform, warm, await acceptMany(platform, warm, 2), 60_000);
  const { rows } = await platform.db.query<{ gas: string }>(
    'SELECT gas_used::text AS gas FROM transactions WHERE project_id = $1 ORDER BY nonce DESC LIMIT 1',
    [warm.projectId],
  );
  const gasPerTx = Number(rows[0]?.gas);
  const fit = Math.floor(GAS_LIMIT / gasPerTx);
  console.log(`one increment: ${fmt(gasPerTx)} gas → ${fmt(fit)} fit in a block; one wallet fills ${SLOTS}`);
  for (const wallets of SIZES) runs.push(await poolRun(platform, wallets, fit, false));
  const killed = await poolRun(platform, 8, fit, true);
  runs.push(killed);
  broken = killed.broken;
} finally {
  await platform.stop();
}

printTable(
  [
    'wallets',
    'ideal tx/s',
    'measured tx/s',
    'ratio',
    'idle blocks',
    'CPU ms/tx',
    'cores allow tx/s',
    'by process (ms/tx)',
  ],
  runs.map((r, i) => [
    `${r.wallets}${i === runs.length - 1 ? ' (endpoint killed)' : ''}`,
    fmt(r.ideal, 1),
    fmt(r.rate, 1),
    `${(r.rate / r.ideal).toFixed(2)} ${verdict(r.rate / r.ideal >= TARGET)}`,
    String(r.idleBlocks),
    r.msPerTx.toFixed(2),
    fmt(mostPerSecond(r.msPerTx)),
    r.byProcess,
  ]),
);
console.log(
  "'cores allow': the most this machine's cores could send at the run's CPU per transaction (all processes: the " +
    "provider proxies of this process judge every broadcast as geth's pool would, which a real network does elsewhere)",
);
console.log(`target: ≥ ${TARGET} of the ideal at every pool size, no idle block, nothing lost or sent twice`);
if (broken.length > 0) console.log(`✖ with an endpoint killed:\n  ${broken.slice(0, 10).join('\n  ')}`);
else console.log('✔ with an endpoint killed: every row final on the canonical chain exactly once');

const figures: Figure[] = runs.flatMap((r, i) => {
  const label = `${r.wallets} wallet${r.wallets === 1 ? '' : 's'}${i === runs.length - 1 ? ', endpoint killed' : ''}`;
  return [
    { name: `${label}: tx/s`, value: Number(r.rate.toFixed(1)), unit: 'tx/s' },
    {
      name: `${label}: of the ideal`,
      value: Number((r.rate / r.ideal).toFixed(2)),
      unit: '',
      target: { op: '>=', value: TARGET },
    },
    { name: `${label}: idle blocks`, value: r.idleBlocks, unit: '', target: { op: '<=', value: 0 } },
  ];
});
figures.push({
  name: 'lost or sent twice, endpoint killed',
  value: broken.length,
  unit: '',
  target: { op: '<=', value: 0 },
});
figures.push({
  name: '32 wallets: machine CPU per transaction',
  value: Number(runs[2]?.msPerTx.toFixed(2)),
  unit: 'ms',
});
recordBench('pool', figures);
if (broken.length > 0) process.exitCode = 1;

/** One pool size: a project with `wallets` wallets drains a backlog of BLOCKS blocks' worth at its ideal rate. */
async function poolRun(
  lab: LabPlatform,
  wallets: number,
  fit: number,
  killEndpoint: boolean,
): Promise<Run & { broken: string[] }> {
  const perBlock = Math.min(wallets * SLOTS, fit);
  const ideal = perBlock / BLOCK_SECONDS;
  const project: LabProject = await lab.project(`Pool of ${wallets}${killEndpoint ? ' (kill)' : ''}`);
  if (wallets > 1) await lab.addWallets(project, wallets - 1);
  const backlog = perBlock * BLOCKS;
  await lab.stopWorker();
  const ids = await acceptMany(lab, project, backlog);
  const cpu = await measuredCpu(async () => {
    await lab.startWorker();
    let kill: Promise<void> | undefined;
    if (killEndpoint) {
      kill = (async () => {
        await new Promise((r) => setTimeout(r, (BLOCKS * BLOCK_SECONDS * 1000) / 2));
        await lab.providers[0]?.close();
      })();
    }
    await settle(lab, project, ids, BLOCKS * BLOCK_SECONDS * 1000 * 6 + 60_000);
    await kill;
  });
  const { rows } = await lab.db.query<{ block: number; n: number }>(
    `SELECT block_number::int AS block, count(*)::int AS n FROM transactions
      WHERE project_id = $1 AND block_number IS NOT NULL GROUP BY block_number ORDER BY block_number`,
    [project.projectId],
  );
  const counts = new Map(rows.map((r) => [r.block, r.n]));
  const first = rows[0]?.block ?? 0;
  const last = rows.at(-1)?.block ?? 0;
  const inner: number[] = [];
  for (let b = first + 1; b < last; b++) inner.push(counts.get(b) ?? 0);
  const rate = (inner.length > 0 ? percentile(inner, 50) : (rows[0]?.n ?? 0)) / BLOCK_SECONDS;
  const idleBlocks = inner.filter((n) => n === 0).length;
  const broken = killEndpoint
    ? await canonicalViolations(lab.db, (method, params) => lab.rpc(method, params), project.projectId, {
        contract: lab.counter,
      }).then((found) => found.filter((line) => !/not finalized/.test(line)))
    : [];
  console.log(
    `${wallets} wallet(s)${killEndpoint ? ', endpoint killed half way' : ''}: ${fmt(backlog)} rows over ` +
      `${last - first + 1} blocks, median ${fmt(rate * BLOCK_SECONDS)} a block (ideal ${fmt(perBlock)})`,
  );
  return {
    wallets,
    ideal,
    rate,
    idleBlocks,
    msPerTx: cpu.busyMs / ids.length,
    byProcess: perUnitByProcess(cpu.byProcess, ids.length),
    broken,
  };
}
