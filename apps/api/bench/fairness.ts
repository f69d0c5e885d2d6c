// npm run bench:fairness — one project's heavy event work must not slow another project's transactions. A cluster
// of one API and one worker process (production settings, anvil automining) serves two projects:
//   B executes steadily (BENCH_RATE per second, default 20);
//   A gets BENCH_SUBSCRIPTIONS subscriptions (default 10) over as many contracts holding BENCH_EVENTS events in
//     all (default 50,000), all backfilling at once, delivering to a receiver that never answers (every webhook
//     waits out WEBHOOK_TIMEOUT_MS and is retried).
// B's accepted → mined latency (on automine a transaction is mined as it is broadcast: broadcasted_at − created_at,
// by the rows' own clock) is measured first with A idle, then with A at work: target p99 ≤ 1.5× the idle p99.
// B's own webhooks (a receiver that answers) are measured the same way, from the transaction's creation to the
// webhook's arrival. A's backfill time (its subscriptions' creation → every one scanned past A's last event) is
// printed beside: the per-project cap on scans (MAX_CONCURRENT_SCANS_PER_PROJECT) trades one against the other.
import { recordBench } from '@mountain/testkit/benchResults.ts';
import { deployEmitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { startCluster } from '../scripts/lib/cluster.ts';
import { printTable } from '../scripts/lib/labChecks.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import { call, runExecutions, setUpProject, startWebhookReceiver } from '../scripts/lib/workload.ts';

const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const PER_TX = 1_000;
const deadline = setTimeout(
  () => {
    console.error('bench:fairness did not finish in time');
    process.exit(1);
  },
  (SECONDS * 2 + 300) * 1000,
);
deadline.unref();

const cluster = await startCluster({
  name: 'fairness',
  apis: 1,
  workers: 1,
  anvilArgs: ['--gas-limit', '100000000'],
});
const answering = await startWebhookReceiver();
const hanging = await startWebhookReceiver();
hanging.hang(Number.MAX_SAFE_INTEGER);
let exitCode = 1;
try {
  const base = cluster.apis[0]?.url as string;
  const b = await setUpProject(cluster, 'B', answering.url);
  const a = await cluster.createProject('A');

  // A's history: SUBSCRIPTIONS contracts sharing EVENTS Transfer events, mined before its subscriptions exist.
  let t = Date.now();
  const emitters = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) emitters.push(await deployEmitter(cluster.anvilUrl));
  const firstBlock = Number(await emitters[0]?.publicClient.getBlockNumber());
  const perEmitter = Math.ceil(EVENTS / SUBSCRIPTIONS);
  for (const emitter of emitters) {
    for (let sent = 0; sent < perEmitter; sent += PER_TX)
      await emitter.emitMany(Math.min(PER_TX, perEmitter - sent), sent);
  }
  const lastEventBlock = Number(await emitters[0]?.publicClient.getBlockNumber());
  console.log(
    `A: ${SUBSCRIPTIONS} contracts with ${(perEmitter * SUBSCRIPTIONS).toLocaleString('en-US')} events mined in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );

  const phase = async (name: string) => {
    const tally = await runExecutions(cluster, [b], { rate: RATE, durationMs: SECONDS * 1000 });
    const ids = [...tally.accepted.keys()];
    const settled = Date.now() + 60_000;
    let rows: { id: string; ms: number | null; created: Date }[] = [];
    while (Date.now() < settled) {
      ({ rows } = await cluster.db.query(
        `SELECT id, extract(epoch FROM broadcasted_at - created_at) * 1000 AS ms, created_at AS created
           FROM transactions WHERE id = ANY($1::uuid[])`,
        [ids],
      ));
      if (rows.every((r) => r.ms !== null)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const mined = rows.flatMap((r) => (r.ms === null ? [] : [Number(r.ms)]));
    // B's webhooks for these transactions: from the transaction's creation to the first arrival of its event.
    const webhooks: number[] = [];
    while (Date.now() < settled) {
      const { rows: records } = await cluster.db.query<{ id: string; created: Date }>(
        `SELECT r.id, t.created_at AS created FROM event_notifier_records r
           JOIN transactions t ON t.transaction_hash = r.transaction_hash AND t.id = ANY($2::uuid[])
          WHERE r.subscription_id = $1`,
        [b.subscriptionId, ids],
      );
      const arrived = new Map<string, number>();
      for (const w of answering.received) if (w.recordId && !arrived.has(w.recordId)) arrived.set(w.recordId, w.at);
      webhooks.length = 0;
      for (const r of records) {
        const at = arrived.get(r.id);
        if (at !== undefined) webhooks.push(at - r.created.getTime());
      }
      if (webhooks.length >= mined.length) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return { name, offered: tally.sent, accepted: ids.length, mined, unmined: rows.length - mined.length, webhooks };
  };

  // Phase 1: A idle.
  const idle = await phase('A idle');
  // Phase 2: A's subscriptions all start backfilling, and every webhook they send hangs.
  t = Date.now();
  for (const [i, emitter] of emitters.entries()) {
    const created = await call(base, a.apiKey, 'POST', '/event-notifier/create-subscription', {
      subscriptionName: `A ${i}`,
      networkId: 1337,
      address: emitter.address,
      formattedAbiEvent: TRANSFER_EVENT,
      initialBlockNumber: firstBlock,
      scanInterval: 5,
      webhookURL: hanging.url,
    });
    if (created.status !== 201)
      throw new Error(`create-subscription: ${created.status} ${JSON.stringify(created.body)}`);
  }
  // How long A's backfill takes (a range's records and its `last_scanned_block` commit together): a look at ten rows
  // every 100 ms.
  let backfilledInMs: number | undefined;
  const watching = (async () => {
    while (backfilledInMs === undefined && Date.now() - t < 120_000) {
      const { rows } = await cluster.db.query<{ behind: number }>(
        `SELECT count(*)::int AS behind FROM event_notifier_subscriptions
          WHERE project_id = $1 AND coalesce(last_scanned_block, -1) < $2`,
        [a.projectId, lastEventBlock],
      );
      if (rows[0]?.behind === 0) backfilledInMs = Date.now() - t;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const busy = await phase('A backfilling, receiver hanging');
  await watching;
  const { rows: stored } = await cluster.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM event_notifier_records r JOIN event_notifier_subscriptions s ON s.id = r.subscription_id
      WHERE s.project_id = $1`,
    [a.projectId],
  );

  const p = (values: number[], q: number) => `${percentile(values, q).toFixed(0)} ms`;
  printTable(
    ['B, accepted → mined', 'offered', 'accepted', 'mined', 'p50', 'p95', 'p99'],
    [idle, busy].map((r) => [
      r.name,
      String(r.offered),
      String(r.accepted),
      String(r.mined.length),
      p(r.mined, 50),
      p(r.mined, 95),
      p(r.mined, 99),
    ]),
  );
  printTable(
    ["B, accepted → its event's webhook", 'webhooks', 'p50', 'p95', 'p99'],
    [idle, busy].map((r) => [
      r.name,
      String(r.webhooks.length),
      p(r.webhooks, 50),
      p(r.webhooks, 95),
      p(r.webhooks, 99),
    ]),
  );
  const ratio = percentile(busy.mined, 99) / Math.max(1, percentile(idle.mined, 99));
  console.log(
    `A during phase 2: ${stored[0]?.n.toLocaleString('en-US')} records stored${backfilledInMs === undefined ? '' : ` (all ${(backfilledInMs / 1000).toFixed(1)} s after its subscriptions were created)`}, ${hanging.received.length} webhooks sent and left hanging`,
  );
  const ok = ratio <= 1.5 && idle.unmined + busy.unmined === 0;
  console.log(`B's p99 with A at work / with A idle: ${ratio.toFixed(2)} (target ≤ 1.5) ${ok ? 'PASS' : 'FAIL'}`);
  exitCode = ok ? 0 : 1;
  const p99 = (latencies: number[]) => Number(percentile(latencies, 99).toFixed(1));
  recordBench('fairness', [
    { name: 'B accepted → mined p99, A idle', value: p99(idle.mined), unit: 'ms' },
    { name: 'B accepted → mined p99, A at work', value: p99(busy.mined), unit: 'ms' },
    {
      name: 'B p99 ratio, A at work / A idle',
      value: Number(ratio.toFixed(2)),
      unit: '',
      target: { op: '<=', value: 1.5 },
    },
    { name: 'B unmined', value: idle.unmined + busy.unmined, unit: '', target: { op: '<=', value: 0 } },
    ...(backfilledInMs === undefined
      ? []
      : [{ name: 'A backfilled in', value: Number((backfilledInMs / 1000).toFixed(1)), unit: 's' }]),
  ]);
} finally {
  await hanging.close();
  await answering.close();
  await cluster.stop();
}
process.exit(exitCode);
