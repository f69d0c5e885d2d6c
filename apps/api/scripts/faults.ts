// npm run faults — fault injection under a mixed load, then the platform's invariants.
//
// A cluster of 2 API and 2 worker processes on one PostgreSQL serves executions (execute-transaction on a Counter,
// at a fixed rate over both APIs) while subscriptions on the Counter's events deliver webhooks to a real receiver.
// Meanwhile, one after the other: an API process and a worker process are SIGKILLed and restarted, PostgreSQL
// restarts, the RPC endpoint refuses connections and then hangs, and the webhook receiver hangs. Afterwards the
// invariants are checked (scripts/lib/invariants.ts) and every API must be ready and serve new executions. Prints
// the faults injected and the figures; exits 1 on any violation. Bounded: about three minutes.
import { startCluster } from './lib/cluster.ts';
import { checkInvariants, checkRecovery, printFigures } from './lib/invariants.ts';
import { blockNumber, describeAnswers, runExecutions, setUpProject, startWebhookReceiver } from './lib/workload.ts';

const RATE = Number(process.env.FAULTS_RATE ?? 20);
const deadline = setTimeout(() => {
  console.error('faults did not finish within 8 minutes');
  process.exit(1);
}, 480_000);
deadline.unref();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const started = Date.now();
const at = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s`;
const faults: string[] = [];
const note = (what: string) => {
  faults.push(`${at()}  ${what}`);
  console.log(`${at()}  ${what}`);
};

let exitCode = 1;
const cluster = await startCluster({
  name: 'faults',
  apis: 2,
  workers: 2,
  env: { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_BACKOFF_BASE_MS: '200', WEBHOOK_BACKOFF_MAX_MS: '2000' },
});
const receiver = await startWebhookReceiver();
try {
  console.log(
    `cluster: ${cluster
      .all()
      .map((p) => `${p.name} (pid ${p.pid()})`)
      .join(', ')}; PostgreSQL, anvil behind an RPC proxy`,
  );
  const fromBlock = await blockNumber(cluster.anvilUrl);
  const projects = [
    await setUpProject(cluster, 'Faults A', receiver.url),
    await setUpProject(cluster, 'Faults B', receiver.url),
  ];
  console.log(`load: execute-transaction at ${RATE}/s over both APIs and two projects, webhooks on every event\n`);
  const stopLoad = new AbortController();
  const load = runExecutions(cluster, projects, { rate: RATE, durationMs: 120_000, signal: stopLoad.signal });

  const [api1, api2] = cluster.apis;
  const [worker1, worker2] = cluster.workers;
  await sleep(5_000);
  note(`SIGKILL ${api1?.name} (pid ${api1?.pid()})`);
  await api1?.kill();
  await sleep(2_000);
  await api1?.restart();
  note(`${api1?.name} restarted (pid ${api1?.pid()})`);

  await sleep(4_000);
  note(`SIGKILL ${worker1?.name} (pid ${worker1?.pid()})`);
  await worker1?.kill();
  await sleep(2_000);
  await worker1?.restart();
  note(`${worker1?.name} restarted (pid ${worker1?.pid()})`);

  await sleep(4_000);
  note('PostgreSQL stopped (fast shutdown)');
  await cluster.restartPostgres(3_000);
  note('PostgreSQL started again');

  await sleep(6_000);
  note('RPC outage: connections refused for 6 s');
  await cluster.rpc.down();
  await sleep(6_000);
  await cluster.rpc.up();
  note('RPC back');

  await sleep(4_000);
  note('RPC hangs: no answer for 6 s');
  cluster.rpc.stall(6_000);
  await sleep(7_000);

  await sleep(3_000);
  note('webhook receiver hangs: no answer for 10 s');
  const before = receiver.received.length;
  receiver.hang(10_000);
  await sleep(11_000);
  note(`receiver answers again (${receiver.received.length - before} webhooks held unanswered meanwhile)`);

  await sleep(3_000);
  note(`SIGKILL ${worker2?.name} and ${api2?.name} together, restarted at once`);
  await Promise.all([worker2?.kill(), api2?.kill()]);
  await Promise.all([worker2?.restart(), api2?.restart()]);

  await sleep(5_000);
  stopLoad.abort();
  const tally = await load;
  note('load stopped');
  console.log(
    `\nexecutions sent ${tally.sent}: accepted ${tally.accepted.size}, 4xx ${tally.status4xx}, 5xx ${tally.status5xx}, connection errors ${tally.connectionErrors} (expected while a process or PostgreSQL is down)`,
  );

  console.log(`answers by status: ${describeAnswers(tally)}`);
  // An outage (PostgreSQL or the RPC down) is answered 503 with Retry-After; anything else 5xx is a defect.
  const unexpected = Object.entries(tally.statuses).filter(([k]) => k.startsWith('5') && !k.startsWith('503'));
  const report = await checkInvariants(cluster, projects, tally.accepted, receiver, { fromBlock });
  for (const [status, n] of unexpected) report.violations.push(`${n} executions answered ${status}`);
  const recovery = await checkRecovery(cluster, projects[0] as (typeof projects)[number]);
  console.log(`\nfaults injected (${faults.length}):`);
  for (const f of faults) console.log(`  ${f}`);
  printFigures('after the faults:', report.figures);
  console.log(`  recovery: ${recovery.length === 0 ? 'every API ready, new executions succeed' : recovery.join('; ')}`);
  console.log(`  memory (MB): ${JSON.stringify(cluster.memory())}`);
  const violations = [...report.violations, ...recovery];
  if (violations.length > 0) {
    console.error(`\n✖ ${violations.length} violations:`);
    for (const v of violations.slice(0, 50)) console.error(`  - ${v}`);
    for (const p of cluster.all()) {
      const log = p.log().trim();
      if (log) console.error(`\n--- ${p.name} stderr (last lines) ---\n${log.split('\n').slice(-15).join('\n')}`);
    }
  } else {
    console.log('\n✔ no invariant violated');
    exitCode = 0;
  }
} catch (error) {
  console.error(error);
  for (const p of cluster.all()) {
    const log = p.log().trim();
    if (log) console.error(`\n--- ${p.name} stderr (last lines) ---\n${log.split('\n').slice(-15).join('\n')}`);
  }
} finally {
  await receiver.close();
  await cluster.stop();
}
process.exit(exitCode);
