// npm run soak — memory under a long mixed load: the API and a job worker, each in its own process as production
// runs them (scripts/lib/cluster.ts), on anvil mining a block a second, for SOAK_SECONDS (600):
//   - executions at SOAK_RATE (20) per second over SOAK_PROJECTS (4) projects, each with its own system wallet;
//   - SOAK_SUBSCRIPTIONS (100) subscriptions on the projects' Counters, delivering every Incremented event to a
//     receiver that answers SOAK_RECEIVER_DELAY_MS (250) late: one per project from the start, live, and the others
//     added a few at a time during the first half of the run, each from block 0, so that backfills of a growing
//     history run beside the live scans until the end of the first half;
//   - every 2 s, each process's resident memory (from /proc) and V8 heap in use (`nodejs_heap_size_used_bytes` from
//     its /metrics), printed every 10 s with the load's progress.
// Targets, each process: RSS and heap at most 300 MB throughout, and heap growth over the last five minutes at most
// 5%. The heap in use is a sawtooth (it climbs until the collector runs, by 100 MB and more in the worker), so a line
// through the raw samples swings by ±15% with the phase of the teeth: the growth is taken from the floor instead, the
// lowest sample of each 30 s (what the collector left), through which a least-squares line is drawn over the window;
// a leak raises the floor. Exits 1 when a target is missed; everything it started is stopped, even after a failure.
import { randomBytes } from 'node:crypto';
import { incrementsSubscription } from '@mountain/testkit/testContract.ts';
import { type Cluster, type ClusterProcess, startCluster } from './lib/cluster.ts';
import { hardDeadline } from './lib/deadline.ts';
import { call, runExecutions, setUpProject, startWebhookReceiver, type WorkloadProject } from './lib/workload.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RATE = Number(process.env.SOAK_RATE ?? 20);
const PROJECTS = Number(process.env.SOAK_PROJECTS ?? 4);
const SUBSCRIPTIONS = Number(process.env.SOAK_SUBSCRIPTIONS ?? 100);
const RECEIVER_DELAY_MS = Number(process.env.SOAK_RECEIVER_DELAY_MS ?? 250);
const SAMPLE_MS = 2_000;
const PRINT_EVERY = 5;
const FLOOR_S = 30;
const LIMIT_MB = 300;
const WINDOW_S = Math.min(300, SECONDS / 2);
const GROWTH_LIMIT = 0.05;

interface Sample {
  at: number;
  /** MB, by process name. */
  rss: Record<string, number>;
  heap: Record<string, number>;
}

const MB = 1024 * 1024;
const started = Date.now();
const seconds = () => (Date.now() - started) / 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The heap in use (MB) from a process's /metrics; undefined when it does not answer. */
async function heapOf(metricsUrl: string, token: string): Promise<number | undefined> {
  try {
    const res = await fetch(metricsUrl, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    const value = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(await res.text())?.[1];
    return value === undefined ? undefined : Number(value) / MB;
  } catch {
    return undefined;
  }
}

/** Where a process serves /metrics, from its start line (`…, metrics at <url>`). */
function metricsUrlOf(proc: ClusterProcess): string {
  const url = /metrics at (\S+)/.exec(proc.log())?.[1];
  if (!url) throw new Error(`${proc.name} did not say where its metrics are:\n${proc.log()}`);
  return url;
}

/** The line through `points` by least squares: its value at `x`. */
function fitted(points: [number, number][], x: number): number {
  const n = points.length;
  const mx = points.reduce((s, [px]) => s + px, 0) / n;
  const my = points.reduce((s, [, py]) => s + py, 0) / n;
  const sxx = points.reduce((s, [px]) => s + (px - mx) ** 2, 0);
  const sxy = points.reduce((s, [px, py]) => s + (px - mx) * (py - my), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return my + slope * (x - mx);
}

let cluster: Cluster | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
const cleanUp = async () => {
  await receiver?.close();
  await cluster?.stop();
  receiver = undefined;
  cluster = undefined;
};
hardDeadline('soak', SECONDS * 1000 + 300_000, cleanUp);

console.log(
  `soak: ${SECONDS} s, ${RATE} executions/s over ${PROJECTS} projects, ${SUBSCRIPTIONS} subscriptions, a receiver answering ${RECEIVER_DELAY_MS} ms late (SOAK_SECONDS, SOAK_RATE, SOAK_PROJECTS, SOAK_SUBSCRIPTIONS, SOAK_RECEIVER_DELAY_MS)`,
);
let exitCode = 1;
try {
  const token = randomBytes(24).toString('hex');
  receiver = await startWebhookReceiver();
  receiver.answerAfter(RECEIVER_DELAY_MS);
  cluster = await startCluster({
    name: 'soak',
    apis: 1,
    workers: 1,
    anvilArgs: ['--block-time', '1'],
    env: { METRICS_PORT: '0', METRICS_TOKEN: token },
  });
  const c = cluster;
  const processes = c.all().map((proc) => ({ proc, metricsUrl: metricsUrlOf(proc) }));
  const projects: WorkloadProject[] = [];
  for (let i = 1; i <= PROJECTS; i++) projects.push(await setUpProject(c, `soak-${i}`, receiver.url, 3));
  const base = c.apis[0]?.url as string;

  // The other subscriptions, added evenly over the first half of the run, each scanning from block 0.
  const extra = Math.max(0, SUBSCRIPTIONS - projects.length);
  const addSubscriptions = (async () => {
    for (let i = 0; i < extra && seconds() < SECONDS; i++) {
      const project = projects[i % projects.length] as WorkloadProject;
      const answer = await call(
        base,
        project.apiKey,
        'POST',
        '/event-notifier/create-subscription',
        incrementsSubscription(project.counter, {
          subscriptionName: `soak ${i}`,
          initialBlockNumber: 0,
          webhookURL: receiver?.url,
          webhookMaxRetries: 3,
        }),
      );
      if (answer.status !== 201)
        throw new Error(`create-subscription: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
      await sleep((SECONDS * 500) / Math.max(1, extra));
    }
  })();

  const load = runExecutions(c, projects, { rate: RATE, durationMs: SECONDS * 1000, maxInFlight: 400 });
  const samples: Sample[] = [];
  console.log(
    `\n${'t (s)'.padStart(6)}  ${processes.map(({ proc }) => `${proc.name} rss/heap MB`.padStart(22)).join('')}  backlog  received`,
  );
  while (seconds() < SECONDS) {
    await sleep(SAMPLE_MS - ((Date.now() - started) % SAMPLE_MS));
    const sample: Sample = { at: seconds(), rss: {}, heap: {} };
    for (const { proc, metricsUrl } of processes) {
      sample.rss[proc.name] = proc.rss() / MB;
      const heap = await heapOf(metricsUrl, token);
      if (heap !== undefined) sample.heap[proc.name] = heap;
    }
    samples.push(sample);
    if (samples.length % PRINT_EVERY !== 0) continue;
    const { rows } = await c.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM transactions WHERE status IN ('created', 'processing', 'broadcasted')",
    );
    console.log(
      `${sample.at.toFixed(0).padStart(6)}  ${processes
        .map(({ proc }) =>
          `${(sample.rss[proc.name] ?? 0).toFixed(0)}/${sample.heap[proc.name]?.toFixed(0) ?? '?'}`.padStart(22),
        )
        .join('')}  ${String(rows[0]?.n ?? 0).padStart(7)}  ${String(receiver.received.length).padStart(8)}`,
    );
  }
  const tally = await load;
  await addSubscriptions;

  console.log(
    `\nexecutions: ${tally.accepted.size} accepted of ${tally.sent} sent, ${tally.status4xx} 4xx, ${tally.status5xx} 5xx, ${tally.connectionErrors} connection errors; webhooks received: ${receiver.received.length}`,
  );
  let held = tally.status5xx === 0 && tally.connectionErrors === 0;
  const windowStart = SECONDS - WINDOW_S;
  for (const { proc } of processes) {
    const maxRss = Math.max(...samples.map((s) => s.rss[proc.name] ?? 0));
    const heaps = samples.filter((s) => s.heap[proc.name] !== undefined);
    const maxHeap = Math.max(...heaps.map((s) => s.heap[proc.name] as number));
    // The floor: the lowest heap of each FLOOR_S, placed at the middle of its span. The sample taken as the run ends
    // (at SECONDS or just after) would make a span of its own, whose one sample is wherever the sawtooth stood.
    const floors = new Map<number, number>();
    for (const s of heaps.filter((s) => s.at >= windowStart && s.at < SECONDS)) {
      const span = Math.floor((s.at - windowStart) / FLOOR_S);
      floors.set(span, Math.min(floors.get(span) ?? Number.POSITIVE_INFINITY, s.heap[proc.name] as number));
    }
    const window = [...floors].map(([span, mb]): [number, number] => [windowStart + (span + 0.5) * FLOOR_S, mb]);
    const from = fitted(window, windowStart);
    const growth = window.length >= 3 ? (fitted(window, SECONDS) - from) / from : Number.NaN;
    const ok = maxRss <= LIMIT_MB && maxHeap <= LIMIT_MB && growth <= GROWTH_LIMIT;
    held &&= ok;
    console.log(
      `${ok ? '✔' : '✖'} ${proc.name}: RSS at most ${maxRss.toFixed(0)} MB, heap at most ${maxHeap.toFixed(0)} MB (targets ≤ ${LIMIT_MB} MB); heap floor over the last ${WINDOW_S} s ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}% by its least-squares line (${window.length} floors of ${FLOOR_S} s: ${window.map(([, mb]) => mb.toFixed(0)).join(' ')} MB; target ≤ ${GROWTH_LIMIT * 100}%)`,
    );
  }
  exitCode = held ? 0 : 1;
} catch (error) {
  console.error(error);
} finally {
  await cleanUp();
}
process.exit(exitCode);
