// npm run bench:scale — scale-out on one external PostgreSQL: 1 API + 1 worker process against 2 API + 2 worker
// processes (scripts/lib/cluster.ts), each on a fresh cluster with BENCH_PROJECTS projects (default 4: four system
// wallets, four subscriptions delivering to a receiver on loopback).
//   1. With no worker running, execute-transaction at BENCH_RATE/s (default 150) for BENCH_SECONDS (default 10)
//      over the API processes: accepted/s and p50/p99.
//   2. The worker processes start and drain that backlog: every transaction sent and confirmed, every event scanned
//      and delivered. Throughput = (transactions + deliveries) / drain time; the ratio 2 workers / 1 worker.
//   3. No duplicated work: every invariant of `npm run faults`, plus each record delivered exactly once (the
//      receiver always answers 200, so a second delivery would be work done twice).
import { recordBench } from '@mountain/testkit/benchResults.ts';
import { type Cluster, startCluster } from '../scripts/lib/cluster.ts';
import { checkInvariants, FINAL, printFigures } from '../scripts/lib/invariants.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import {
  blockNumber,
  runExecutions,
  setUpProject,
  startWebhookReceiver,
  type WorkloadProject,
} from '../scripts/lib/workload.ts';

const RATE = Number(process.env.BENCH_RATE ?? 150);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 4);
const deadline = setTimeout(() => {
  console.error('bench:scale did not finish within 15 minutes');
  process.exit(1);
}, 900_000);
deadline.unref();

interface Run {
  processes: number;
  accepted: number;
  acceptRate: number;
  p50: number;
  p99: number;
  drainSeconds: number;
  transactions: number;
  deliveries: number;
  throughput: number;
  txRate: number;
  violations: string[];
}

async function pendingWork(cluster: Cluster, projects: WorkloadProject[]) {
  const r = await pendingByKind(cluster, projects);
  return r.tx + r.undelivered + r.behind;
}

async function pendingByKind(cluster: Cluster, projects: WorkloadProject[]) {
  const { rows } = await cluster.db.query<{ tx: number; undelivered: number; behind: number }>(
    `SELECT (SELECT count(*) FROM transactions WHERE project_id = ANY($1) AND NOT (status = ANY($2)))::int AS tx,
            (SELECT count(*) FROM event_notifier_records WHERE subscription_id = ANY($3::uuid[]) AND status <> 'notified')::int AS undelivered,
            (SELECT count(*) FROM event_notifier_subscriptions WHERE id = ANY($3::uuid[])
                AND coalesce(last_scanned_block, -1) < $4)::int AS behind`,
    [
      projects.map((p) => p.projectId),
      FINAL,
      projects.map((p) => p.subscriptionId),
      await blockNumber(cluster.anvilUrl),
    ],
  );
  return rows[0] as { tx: number; undelivered: number; behind: number };
}

async function measure(processes: number): Promise<Run> {
  const cluster = await startCluster({ name: `scale${processes}`, apis: processes, workers: 0 });
  const receiver = await startWebhookReceiver();
  try {
    const fromBlock = await blockNumber(cluster.anvilUrl);
    const projects: WorkloadProject[] = [];
    for (let i = 0; i < PROJECTS; i++) projects.push(await setUpProject(cluster, `Scale ${i + 1}`, receiver.url));
    const tally = await runExecutions(cluster, projects, { rate: RATE, durationMs: SECONDS * 1000 });
    const errors = tally.status4xx + tally.status5xx + tally.connectionErrors;
    console.log(
      `  ${processes} API: accepted ${tally.accepted.size} (${(tally.accepted.size / SECONDS).toFixed(0)}/s), errors ${errors}; p50 ${percentile(tally.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(tally.latenciesMs, 99).toFixed(1)} ms`,
    );

    await Promise.all(Array.from({ length: processes }, () => cluster.add('worker')));
    const started = Date.now();
    let lastReport = started;
    let txSeconds = 0;
    while ((await pendingWork(cluster, projects)) > 0) {
      if (!txSeconds && (await pendingByKind(cluster, projects)).tx === 0) txSeconds = (Date.now() - started) / 1000;
      if (Date.now() - started > 300_000) throw new Error('the backlog was not drained within 5 minutes');
      if (Date.now() - lastReport >= 5_000) {
        lastReport = Date.now();
        const left = await pendingByKind(cluster, projects);
        console.log(
          `    ${((lastReport - started) / 1000).toFixed(0)} s: ${left.tx} transactions not final, ${left.undelivered} records not delivered, ${left.behind} subscriptions behind the head`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const drainSeconds = (Date.now() - started) / 1000;
    txSeconds ||= drainSeconds;
    const deliveries = receiver.delivered().size;
    const throughput = (tally.accepted.size + deliveries) / drainSeconds;
    const txRate = tally.accepted.size / txSeconds;
    console.log(
      `  ${processes} worker${processes > 1 ? 's' : ''}: ${tally.accepted.size} transactions confirmed in ${txSeconds.toFixed(1)} s = ${txRate.toFixed(0)} tx/s; with the ${deliveries} webhooks (scans every 5 s) all done in ${drainSeconds.toFixed(1)} s = ${throughput.toFixed(0)} jobs/s`,
    );
    const report = await checkInvariants(cluster, projects, tally.accepted, receiver, {
      fromBlock,
      exactlyOnceDelivery: true,
      settleMs: 30_000,
    });
    printFigures(`  no duplicated work with ${processes} + ${processes} processes:`, report.figures);
    return {
      processes,
      accepted: tally.accepted.size,
      acceptRate: tally.accepted.size / SECONDS,
      p50: percentile(tally.latenciesMs, 50),
      p99: percentile(tally.latenciesMs, 99),
      drainSeconds,
      transactions: tally.accepted.size,
      deliveries,
      throughput,
      txRate,
      violations: [...report.violations, ...(errors ? [`${errors} executions were not accepted`] : [])],
    };
  } finally {
    await receiver.close();
    await cluster.stop();
  }
}

console.log(
  `bench:scale: ${RATE} executions/s for ${SECONDS} s over ${PROJECTS} projects, then the workers drain the backlog\n`,
);
let exitCode = 1;
try {
  console.log('1 API + 1 worker');
  const one = await measure(1);
  console.log('\n2 API + 2 workers');
  const two = await measure(2);
  console.log(
    `\naccepted/s: ${one.acceptRate.toFixed(0)} with 1 API, ${two.acceptRate.toFixed(0)} with 2 (at a fixed ${RATE}/s; p99 ${one.p99.toFixed(1)} → ${two.p99.toFixed(1)} ms)`,
  );
  console.log(
    `transactions confirmed: ${one.txRate.toFixed(0)} tx/s with 1 worker, ${two.txRate.toFixed(0)} with 2; ratio 2/1 = ${(two.txRate / one.txRate).toFixed(2)}`,
  );
  console.log(
    `all work (transactions and webhooks): ${one.throughput.toFixed(0)} jobs/s with 1 worker, ${two.throughput.toFixed(0)} with 2; ratio 2/1 = ${(two.throughput / one.throughput).toFixed(2)}`,
  );
  const violations = [...one.violations, ...two.violations];
  if (violations.length) {
    console.error(`\n✖ ${violations.length} violations:`);
    for (const v of violations.slice(0, 50)) console.error(`  - ${v}`);
  } else {
    console.log('\n✔ no duplicated work: each transaction sent once, each record delivered once');
    exitCode = 0;
  }
  recordBench('scale', [
    { name: 'accepted, 1 API', value: Math.round(one.acceptRate), unit: '/s' },
    { name: 'accepted, 2 API', value: Math.round(two.acceptRate), unit: '/s' },
    { name: 'confirmed, 1 worker', value: Math.round(one.txRate), unit: 'tx/s' },
    { name: 'confirmed, 2 workers', value: Math.round(two.txRate), unit: 'tx/s' },
    { name: 'all work, 1 worker', value: Math.round(one.throughput), unit: 'jobs/s' },
    { name: 'all work, 2 workers', value: Math.round(two.throughput), unit: 'jobs/s' },
    { name: 'duplicated work (violations)', value: violations.length, unit: '', target: { op: '<=', value: 0 } },
  ]);
} catch (error) {
  console.error(error);
}
process.exit(exitCode);
