import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, deployCounter } from '@mountain/testkit/testContract.ts';
import { type Delivery, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import type { Db } from '#api/db/db.ts';
import { type DeliverySettings, defaultDeliverySettings } from '#api/delivery/settings.ts';
import type { WalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createEndpoint } from '#api/webhooks/endpoints/endpoints.ts';
import { purgeWebhookLog } from '#api/webhooks/log/purgeLog.ts';
import { createWorker } from '#api/worker/worker.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import { type Stop, startBenchDatabase } from './benchDatabase.ts';
import { startExecuteLoad } from './executeLoadDriver.ts';
import { measuredCpu, mostPerSecond, perUnitByProcess } from './machineCpu.ts';

const TX_RATE = Number(process.env.BENCH_WEBHOOK_TX_RATE ?? 500);
const TX_SECONDS = Number(process.env.BENCH_WEBHOOK_TX_SECONDS ?? 10);
const MESSAGES = Number(process.env.BENCH_WEBHOOK_MESSAGES ?? 4_000);
const ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 1_000);
const EVERY_MS = Number(process.env.BENCH_WEBHOOK_EVERY_MS ?? 10_000);
const FANOUT_SECONDS = Number(process.env.BENCH_WEBHOOK_FANOUT_SECONDS ?? 40);

const ms = (value: number) => `${Math.round(value)} ms`;

/** Milliseconds from each delivery's event (its payload's `timestamp`) to its arrival at the receiver. */
function latencies(deliveries: readonly Delivery[], keep: (payload: { timestamp: string }) => boolean): number[] {
  return deliveries.flatMap((d) => {
    const payload = JSON.parse(d.body) as { timestamp: string };
    return keep(payload) ? [d.receivedAt - Date.parse(payload.timestamp)] : [];
  });
}

/** A worker of the bench's database; `stop` ends it. */
function startWorker(
  db: Db,
  keys: WalletKeys,
  masterKey: Buffer,
  delivery: DeliverySettings,
  chains = createChains({}),
) {
  const stop = new AbortController();
  const worker = createWorker({
    deps: { db, chains, signers: createSignerProvider(keys), masterKey, signal: stop.signal, delivery },
  });
  return {
    start: () => worker.start(),
    stop: async () => {
      stop.abort();
      await worker.stop();
    },
  };
}

async function waitUntil(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A: status change → webhook received at TX_RATE executions/s. */
export async function transactionEventsSection(): Promise<boolean> {
  const stops: Stop[] = [];
  try {
    const anvil = await startAnvil({ port: await freePort() });
    stops.push(() => anvil.stop());
    const { db, masterKey, keys, apiKey } = await startBenchDatabase('webhook-tx', stops);
    const counter = await deployCounter(anvil.url);
    const chains = createChains({ 1337: anvil.url });
    const settings = defaultDeliverySettings('loopback');
    const app = buildApp({
      db,
      chains,
      tokenSigningKey: randomBytes(32),
      masterKey,
      bodyLimit: 65536,
      delivery: settings,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    stops.push(() => app.close());
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/public-api/v3`;
    const post = async (op: string, body: object) =>
      (await (
        await fetch(`${base}${op}`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as Record<string, { id: number }>;
    const receiver = await startReceiver();
    stops.push(() => receiver.close());
    await post('/webhook/create-webhook-endpoint', { url: receiver.url, eventTypes: ['transaction.succeeded'] });
    const contract = await post('/contract/import-contract', {
      networkId: 1337,
      address: counter,
      formattedAbi: COUNTER_FORMATTED_ABI,
    });
    const activated = await post('/contract/activate-contract-function', {
      contractId: contract.contract?.id as number,
      formattedAbiFunction: 'function increment(uint256 amount)',
    });
    const worker = startWorker(db, keys, masterKey, settings, chains);
    await worker.start();
    stops.push(() => worker.stop());
    const drive = startExecuteLoad(
      {
        url: `${base}/transaction/execute-transaction`,
        apiKey,
        functionId: activated.contractActivatedFunction?.id,
        connections: 64,
      },
      stops,
    );
    const settled = () =>
      waitUntil('every transaction succeeded and its webhook received', 180_000, async () => {
        const { rows } = await db.query<{ open: number; succeeded: number }>(
          `SELECT count(*) FILTER (WHERE status IN ('created', 'processing', 'broadcasted'))::int AS open,
                  count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded FROM transactions`,
        );
        return rows[0]?.open === 0 && receiver.deliveries.length >= (rows[0]?.succeeded ?? 0);
      });
    // A warm-up at the same rate, drained: the first seconds of a process compile its paths.
    await drive(TX_RATE, 3);
    await settled();
    const measuredFrom = Date.now();
    const cpu = await measuredCpu(async () => {
      const result = await drive(TX_RATE, TX_SECONDS);
      await settled();
      return result;
    });
    const { accepted } = cpu.result;
    const lags = latencies(receiver.deliveries, (p) => Date.parse(p.timestamp) >= measuredFrom).sort((a, b) => a - b);
    const p95 = percentile(lags, 95);
    // On automine a transaction is mined as it is broadcast: accepted → mined is broadcasted_at − created_at.
    const { rows: mined } = await db.query<{ ms: number }>(
      `SELECT extract(epoch FROM broadcasted_at - created_at) * 1000 AS ms FROM transactions
        WHERE created_at >= to_timestamp($1 / 1000.0) AND broadcasted_at IS NOT NULL`,
      [measuredFrom],
    );
    const toMined = mined.map((r) => Number(r.ms)).sort((a, b) => a - b);
    console.log(
      `  A. accepted → mined (automine) at ${TX_RATE}/s: p50 ${ms(percentile(toMined, 50))}, p99 ${ms(percentile(toMined, 99))} over ${toMined.length} transactions`,
    );
    // What the rate asks of the cores: every process's CPU from the first request to the last webhook, per
    // transaction (the load generator is "other node processes"; the API, worker and receiver are this process).
    const msPerTx = cpu.busyMs / Math.max(1, accepted);
    const most = mostPerSecond(msPerTx);
    console.log(
      `  A. machine CPU per transaction: ${msPerTx.toFixed(2)} ms (${perUnitByProcess(cpu.byProcess, accepted)}; the cores ` +
        `${Math.round(cpu.busyShare * 100)}% busy): ${cpus().length} cores carry about ${Math.round(most)}/s at that cost, ` +
        `so ${TX_RATE}/s takes ${Math.round((TX_RATE / most) * 100)}% of them`,
    );
    console.log(
      `  A. transaction events at ${TX_RATE} executions/s for ${TX_SECONDS} s (${accepted} accepted, ${lags.length} transaction.succeeded received): status change → webhook received p50 ${ms(percentile(lags, 50))}, p95 ${ms(p95)}, p99 ${ms(percentile(lags, 99))} (target p95 ≤ 1 s) ${p95 <= 1_000 ? 'PASS' : 'short'}`,
    );
    return p95 <= 1_000;
  } finally {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => {});
  }
}

/** Writes `count` endpoint.disabled messages to every endpoint of `projectId` taking the type, in one statement. */
async function writeMessages(db: Db, projectId: number, count: number): Promise<void> {
  await db.query(
    `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
              jsonb_populate_record(NULL::webhook_messages,
                jsonb_build_object('data', jsonb_build_object('endpoint',
                  jsonb_build_object('id', gen_random_uuid(), 'url', 'https://example.com/gone',
                                     'disabledReason', 'bench ' || i)))))
       FROM generate_series(1, $2) AS i`,
    [projectId, count],
  );
}

/** Creates an endpoint through the API's own function, taking endpoint.disabled. */
async function addEndpoints(db: Db, projectId: number, urls: string[], masterKey: Buffer): Promise<string[]> {
  const ids: string[] = [];
  for (const url of urls) {
    const created = await createEndpoint(db, masterKey, 100_000, projectId, { url, eventTypes: ['endpoint.disabled'] });
    ids.push(created.id);
  }
  return ids;
}

/** B: deliveries per second with the attempt log on and off. */
export async function attemptLogSection(): Promise<boolean> {
  const stops: Stop[] = [];
  try {
    const { db, masterKey, keys, project } = await startBenchDatabase('webhook-log', stops);
    const receiver = await startReceiver();
    stops.push(() => receiver.close());
    const [endpointId] = await addEndpoints(db, project.id, [receiver.url], masterKey);
    const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
    // A warm-up round first (not counted): the first deliveries of a process compile its paths.
    for (const [i, log] of (['on', 'on', 'off', 'on', 'off', 'on', 'off'] as const).entries()) {
      await writeMessages(db, project.id, MESSAGES);
      const settings = { ...defaultDeliverySettings('loopback'), webhookAttemptLog: log === 'on' };
      const worker = startWorker(db, keys, masterKey, settings);
      const started = performance.now();
      await worker.start();
      await waitUntil(`${MESSAGES} deliveries with the log ${log}`, 300_000, async () => {
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`,
          [endpointId],
        );
        return rows[0]?.n === 0;
      });
      if (i > 0) rates[log].push(MESSAGES / ((performance.now() - started) / 1000));
      await worker.stop();
    }
    // The purge's cost: every attempt and message aged past the retention, then deleted by the job's function.
    await db.query(`UPDATE webhook_attempts SET attempted_at = now() - interval '40 days'`);
    await db.query(`UPDATE webhook_messages SET created_at = now() - interval '40 days'`);
    const purgeStarted = performance.now();
    const purged = await purgeWebhookLog(db, 30);
    const purgeSeconds = (performance.now() - purgeStarted) / 1000;
    console.log(
      `  B. the purge (webhook:purge-log) of what those rounds left, aged past 30 days: ${purged.attempts} attempts and ${purged.messages} messages in ${purgeSeconds.toFixed(2)} s (${((purged.attempts + purged.messages) / purgeSeconds).toFixed(0)} rows/s, 5,000 rows a statement)`,
    );
    const on = percentile(rates.on, 50);
    const off = percentile(rates.off, 50);
    const ratio = on / off;
    console.log(
      `  B. the attempt log's cost, ${MESSAGES} messages to one endpoint drained by a worker (a warm-up, then on and off in turn, three each): ${rates.on.map((r) => r.toFixed(0)).join(' / ')} deliveries/s with the log on, ${rates.off.map((r) => r.toFixed(0)).join(' / ')} off; median on ÷ median off ${ratio.toFixed(2)} (target ≥ 0.9) ${ratio >= 0.9 ? 'PASS' : 'short'}`,
    );
    return ratio >= 0.9;
  } finally {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => {});
  }
}

/** C: the healthy endpoints' delivery p95 among ENDPOINTS, with and without one that never answers. */
export async function endpointFanoutSection(): Promise<boolean> {
  const stops: Stop[] = [];
  try {
    const { db, masterKey, keys, project } = await startBenchDatabase('webhook-fanout', stops);
    const healthy = await startReceiver();
    stops.push(() => healthy.close());
    // Never answers: each attempt lasts the whole timeout.
    const hanging = await startReceiver(() => ({ status: 200, delayMs: 600_000 }));
    stops.push(() => hanging.close());
    await addEndpoints(
      db,
      project.id,
      Array.from({ length: ENDPOINTS - 1 }, () => healthy.url),
      masterKey,
    );
    const [failing] = await addEndpoints(db, project.id, [healthy.url], masterKey);
    const settings = { ...defaultDeliverySettings('loopback'), webhookTimeoutMs: 5_000 };
    const run = async (label: string): Promise<number> => {
      const worker = startWorker(db, keys, masterKey, settings);
      await worker.start();
      const first = healthy.deliveries.length;
      const rounds = Math.round((FANOUT_SECONDS * 1000) / EVERY_MS);
      for (let i = 0; i < rounds; i++) {
        await writeMessages(db, project.id, 1);
        await new Promise((r) => setTimeout(r, EVERY_MS));
      }
      const expected = rounds * (ENDPOINTS - 1);
      // Counted, not parsed, at each arrival: the check runs once per delivery.
      await healthy.waitFor(
        () => healthy.deliveries.length - first >= expected,
        300_000,
        `${label}: ${expected} deliveries to the healthy endpoints`,
      );
      await worker.stop();
      const lags = latencies(healthy.deliveries.slice(first), () => true).sort((a, b) => a - b);
      return percentile(lags, 95);
    };
    const allHealthy = await run('every endpoint healthy');
    await db.query('UPDATE webhook_endpoints SET url = $2 WHERE id = $1', [failing, hanging.url]);
    const oneFailing = await run('one endpoint failing');
    const ratio = oneFailing / allHealthy;
    console.log(
      `  C. ${ENDPOINTS} endpoints on one project, a message to each every ${EVERY_MS} ms for ${FANOUT_SECONDS} s: the healthy endpoints' delivery p95 ${ms(allHealthy)} with every endpoint healthy, ${ms(oneFailing)} with one that never answers (${hanging.deliveries.length} attempts to it); ratio ${ratio.toFixed(2)} (target ≤ 1.2) ${ratio <= 1.2 ? 'PASS' : 'short'}`,
    );
    return ratio <= 1.2;
  } finally {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => {});
  }
}

/** The sections of bench:events (B and C). */
export async function webhookDeliverySections(): Promise<boolean> {
  console.log('\nWebhook delivery');
  const log = await attemptLogSection();
  const fanout = await endpointFanoutSection();
  return log && fanout;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const deadline = setTimeout(() => {
    console.error('the webhook benchmarks did not finish within 20 minutes');
    process.exit(1);
  }, 1_200_000);
  deadline.unref();
  const only = process.env.BENCH_WEBHOOK_ONLY;
  let ok = true;
  for (const [name, section] of [
    ['A', transactionEventsSection],
    ['B', attemptLogSection],
    ['C', endpointFanoutSection],
  ] as const) {
    if (only && !only.includes(name)) continue;
    const held = await section().catch((error) => {
      console.error(error);
      return false;
    });
    ok = held && ok;
  }
  process.exit(ok ? 0 : 1);
}
