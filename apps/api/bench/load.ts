// npm run bench:load — a mixed workload against a cluster (scripts/lib/cluster.ts: BENCH_APIS API and
// BENCH_WORKERS worker processes, default 2 + 2, on one PostgreSQL and anvil) for BENCH_SECONDS (default 60) at
// BENCH_RATE requests per second (default 200), from a separate load-generator process:
// reads (get-project-detail, get-contracts, get-transactions, get-transaction, get-records, get-subscriptions) and
// writes (execute-transaction, activate/deactivate, create-subscription), while the workers send the transactions
// and deliver a webhook for each event to a receiver on loopback.
// Prints requests/s, p50/p99 per operation, the error rate (target: 0 answers that are neither 2xx nor 4xx), and the
// RSS of each process at start, middle and end (growth over 50% between middle and end is flagged).
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordBench } from '@mountain/testkit/benchResults.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { startCluster } from '../scripts/lib/cluster.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import { blockNumber, call, runExecutions, setUpProject, startWebhookReceiver } from '../scripts/lib/workload.ts';
import { type MixPlan, type OpResult, SKIPPED } from './loadMix.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const APIS = Number(process.env.BENCH_APIS ?? 2);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const deadline = setTimeout(
  () => {
    console.error('bench:load did not finish in time');
    process.exit(1);
  },
  (SECONDS + 300) * 1000,
);
deadline.unref();

const cluster = await startCluster({ name: 'load', apis: APIS, workers: WORKERS });
const receiver = await startWebhookReceiver();
let exitCode = 1;
try {
  const project = await setUpProject(cluster, 'Load', receiver.url);
  const base = cluster.apis[0]?.url as string;
  const claim = await call(base, project.apiKey, 'POST', '/contract/activate-contract-function', {
    contractId: project.contractId,
    formattedAbiFunction: 'function claim(uint256 id)',
  });
  if (claim.status !== 201) throw new Error(`activate claim: ${claim.status}`);
  // Something to read: a few transactions, and their events once scanned.
  const seed = await runExecutions(cluster, [project], { rate: 50, durationMs: 2_000 });
  const quietContract = await deployCounter(cluster.anvilUrl);

  const memory: Record<string, Record<string, number>> = { start: cluster.memory() };
  const plan: MixPlan = {
    apis: cluster.apis.map((p) => p.url as string),
    rate: RATE,
    seconds: SECONDS,
    maxInFlight: 256,
    apiKey: project.apiKey,
    contractId: project.contractId,
    functionId: project.functionId,
    transactionIds: [...seed.accepted.keys()],
    subscriptionId: project.subscriptionId,
    quietContract,
    headBlock: await blockNumber(cluster.anvilUrl),
  };
  console.log(
    `bench:load: ${RATE} req/s for ${SECONDS} s over ${APIS} API processes, ${WORKERS} worker processes (BENCH_RATE, BENCH_SECONDS, BENCH_APIS, BENCH_WORKERS)…`,
  );
  const generator = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'loadMix.ts'), {
    execArgv: ['--import', 'tsx'],
  });
  const middle = setTimeout(
    () => {
      memory.middle = cluster.memory();
    },
    (SECONDS * 1000) / 2,
  );
  const started = Date.now();
  const results = await new Promise<Record<string, OpResult>>((resolve, reject) => {
    generator.once('message', (m) => resolve(m as Record<string, OpResult>));
    generator.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)));
    generator.send(plan);
  });
  clearTimeout(middle);
  const elapsed = (Date.now() - started) / 1000;
  memory.end = cluster.memory();

  const rows = Object.entries(results).map(([name, r]) => ({
    name,
    count: r.count,
    rps: r.latenciesMs.length / elapsed,
    p50: percentile(r.latenciesMs, 50),
    p99: percentile(r.latenciesMs, 99),
    r,
  }));
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(
    `\n${'operation'.padEnd(24)}${pad('requests', 9)}${pad('req/s', 8)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('2xx', 7)}${pad('4xx', 6)}${pad('5xx', 6)}${pad('conn err', 9)}`,
  );
  let answered = 0;
  let bad = 0;
  let total = 0;
  const skipped = results[SKIPPED]?.count ?? 0;
  for (const row of rows) {
    if (row.name === SKIPPED) continue;
    answered += row.r.latenciesMs.length;
    bad += row.r.status5xx + row.r.connectionErrors;
    total += row.count;
    console.log(
      `${row.name.padEnd(24)}${pad(row.count, 9)}${pad(row.rps.toFixed(1), 8)}${pad(row.p50.toFixed(1), 9)}${pad(row.p99.toFixed(1), 9)}${pad(row.r.status2xx, 7)}${pad(row.r.status4xx, 6)}${pad(row.r.status5xx, 6)}${pad(row.r.connectionErrors, 9)}`,
    );
  }
  const all = rows.flatMap((r) => r.r.latenciesMs);
  console.log(
    `${'all'.padEnd(24)}${pad(total, 9)}${pad((answered / elapsed).toFixed(1), 8)}${pad(percentile(all, 50).toFixed(1), 9)}${pad(percentile(all, 99).toFixed(1), 9)}`,
  );
  console.log(
    `\nerror rate (5xx + connection errors): ${bad} of ${total} = ${((100 * bad) / Math.max(1, total)).toFixed(3)}% (target 0)`,
  );
  if (skipped) {
    console.log(
      `not sent: ${skipped} ticks found ${plan.maxInFlight} requests still waiting (the cluster fell behind the rate)`,
    );
  }
  console.log(`webhooks received during the run: ${receiver.received.length}`);

  console.log('\nRSS (MB)        start  middle     end');
  let grown = 0;
  for (const name of Object.keys(memory.start ?? {})) {
    const [s, m, e] = [memory.start?.[name] ?? 0, memory.middle?.[name] ?? 0, memory.end?.[name] ?? 0];
    const flag = m > 0 && e > m * 1.5 ? '  ⚠ grew over 50% in the second half' : '';
    if (flag) grown++;
    console.log(`${name.padEnd(14)}${pad(s, 7)}${pad(m, 8)}${pad(e, 8)}${flag}`);
  }
  exitCode = bad === 0 && grown === 0 ? 0 : 1;
  recordBench('load', [
    { name: 'all operations', value: Number((answered / elapsed).toFixed(1)), unit: 'req/s' },
    { name: 'all operations p50', value: Number(percentile(all, 50).toFixed(1)), unit: 'ms' },
    { name: 'all operations p99', value: Number(percentile(all, 99).toFixed(1)), unit: 'ms' },
    {
      name: 'error rate (5xx + connection errors)',
      value: Number(((100 * bad) / Math.max(1, total)).toFixed(3)),
      unit: '%',
      target: { op: '<=', value: 0 },
    },
    {
      name: 'processes whose RSS grew over 50% in the second half',
      value: grown,
      unit: '',
      target: { op: '<=', value: 0 },
    },
  ]);
} catch (error) {
  console.error(error);
} finally {
  await receiver.close();
  await cluster.stop();
}
process.exit(exitCode);
