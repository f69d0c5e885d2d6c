// npm run bench:events — the event notifier against a local chain: anvil with ≥ 50,000 matching events already
// mined, one subscription backfilling them with webhooks to a loopback receiver. Prints events stored per second
// next to a raw baseline measured in the same run (the same block ranges fetched with eth_getLogs and decoded
// with viem, nothing stored), webhook deliveries per second, and the p95 latency from block mined to webhook
// received for live events. Then the watch section (eventsWatch.ts: two events of 1,000 contracts with a filter,
// against one event of one contract; BENCH_WATCH=0 skips it), the provider section (eventsProvider.ts; BENCH_PROVIDER=0 skips it) and the live
// section on 1 s blocks with reorgs (eventsLive.ts; BENCH_LIVE=0 skips it), and the webhook endpoints' sections
// (webhooks.ts: the attempt log's cost, 1,000 endpoints with one failing; BENCH_WEBHOOKS=0 skips them).

import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { type Figure, recordBench } from '@mountain/testkit/benchResults.ts';
import { deployEmitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { type AbiEvent, parseAbiItem } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { toDecodedLog } from '#api/eventNotifier/abiEvent.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { createSubscription } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { checkWatch } from '#api/eventNotifier/watch.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { startBenchDatabase } from './benchDatabase.ts';
import { liveReorgSection } from './eventsLive.ts';
import { benchProviderBackfill } from './eventsProvider.ts';
import { watchSection } from './eventsWatch.ts';
import { measuredCpu, mostPerSecond, perUnitByProcess } from './machineCpu.ts';
import { webhookDeliverySections } from './webhooks.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const PER_TX = 1_000;
const BLOCK_RANGE = Number(process.env.BENCH_BLOCK_RANGE ?? 5);
const LIVE_EVENTS = Number(process.env.BENCH_LIVE_EVENTS ?? 30);
const SCAN_INTERVAL = 5;
// The whole run is bounded: a stuck stage fails the bench instead of hanging it.
const deadline = setTimeout(() => {
  console.error('bench:events did not finish within 10 minutes');
  process.exit(1);
}, 600_000);
deadline.unref();

const stops: (() => Promise<unknown> | unknown)[] = [];
async function cleanup() {
  for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => {});
}
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const figures: Figure[] = [];

try {
  // Chain: EVENTS matching Transfer events in EVENTS / 1,000 transactions (one block each), plus an unrelated event.
  const anvil = await startAnvil({ port: await freePort(), args: ['--gas-limit', '100000000'] });
  stops.push(() => anvil.stop());
  const emitter = await deployEmitter(anvil.url);
  const firstBlock = Number(await emitter.publicClient.getBlockNumber()) + 1;
  let t = Date.now();
  for (let sent = 0; sent < EVENTS; sent += PER_TX) await emitter.emitMany(Math.min(PER_TX, EVENTS - sent), sent);
  await emitter.emitApproval(1n);
  const head = await emitter.publicClient.getBlockNumber();
  console.log(`mined ${EVENTS} Transfer events in blocks ${firstBlock}..${head} in ${seconds(Date.now() - t)}`);

  // Database, project, receiver.
  const { db, masterKey, keys, project } = await startBenchDatabase('events', stops);

  // The receiver runs in its own process, as a customer's server would: it answers 200 and notes when each
  // webhook-id first arrived.
  const receiver = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'webhookReceiver.ts'), {
    execArgv: ['--import', 'tsx'],
  });
  stops.push(() => receiver.kill('SIGTERM'));
  const port = await new Promise<number>((resolve) => receiver.once('message', (m) => resolve(m as number)));
  const webhookURL = `http://127.0.0.1:${port}/hook`;
  const ask = <T>(question: string) =>
    new Promise<T>((resolve) => {
      receiver.once('message', (m) => resolve(m as T));
      receiver.send(question);
    });
  const receivedCount = () => ask<number>('count');
  const receivedTimes = async () => new Map(await ask<[string, number][]>('times'));

  // Baseline: the same block ranges through eth_getLogs and viem's decoding, nothing stored (best of two runs).
  const chains = createChains({ 1337: anvil.url });
  const event = parseAbiItem(TRANSFER_EVENT) as AbiEvent;
  let baselineMs = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 2; run++) {
    t = Date.now();
    let n = 0;
    const client = chains.client(1337);
    for (let from = BigInt(firstBlock); from <= head; from += BigInt(BLOCK_RANGE)) {
      const to = from + BigInt(BLOCK_RANGE) - 1n < head ? from + BigInt(BLOCK_RANGE) - 1n : head;
      const logs = await client.getLogs({
        address: emitter.address,
        event,
        fromBlock: from,
        toBlock: to,
        strict: true,
      });
      for (const log of logs) toDecodedLog(log.args);
      n += logs.length;
    }
    if (n !== EVENTS) throw new Error(`baseline read ${n} events, expected ${EVENTS}`);
    baselineMs = Math.min(baselineMs, Date.now() - t);
  }

  // The notifier: a worker in this process, one subscription from firstBlock with a webhook.
  const settings = { ...defaultEventNotifierSettings('development'), maxBlockRange: BLOCK_RANGE };
  const delivery = { ...defaultDeliverySettings('loopback'), deliveryConcurrency: 64 };
  const stop = new AbortController();
  const worker = createWorker({
    deps: {
      db,
      chains,
      signers: createSignerProvider(keys),
      masterKey,
      signal: stop.signal,
      eventNotifier: settings,
      delivery,
    },
  });
  await worker.start();
  stops.push(async () => {
    stop.abort();
    await worker.stop();
  });
  const started = Date.now();
  // The machine's CPU while the backfill is stored, by process: this one reads, decodes and encodes, PostgreSQL
  // stores, anvil serves the logs (the deliveries wait for the backfill's hold).
  const storing = await measuredCpu(async () => {
    const created = await createSubscription(db, masterKey, settings, project.id, {
      subscriptionName: 'Bench',
      networkId: 1337,
      watch: checkWatch({ address: emitter.address, formattedAbiEvent: TRANSFER_EVENT }),
      initialBlockNumber: firstBlock,
      scanInterval: SCAN_INTERVAL,
      webhookURL,
      webhookMaxRetries: 5,
    });
    for (;;) {
      const { rows } = await db.query<{ last: number | null }>(
        'SELECT last_scanned_block AS last FROM event_notifier_subscriptions WHERE id = $1',
        [created.id],
      );
      if ((rows[0]?.last ?? 0) >= Number(head)) return { subscription: created, storedAt: Date.now() };
      await new Promise((r) => setTimeout(r, 10));
    }
  });
  const { subscription, storedAt } = storing.result;
  while ((await receivedCount()) < EVENTS) await new Promise((r) => setTimeout(r, 20));
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM event_notifier_records WHERE subscription_id = $1',
    [subscription.id],
  );
  if (rows[0]?.n !== EVENTS) throw new Error(`stored ${rows[0]?.n} records, expected ${EVENTS}`);
  const deliveryTimes = [...(await receivedTimes()).values()].sort((a, b) => a - b);
  const storedPerSecond = EVENTS / ((storedAt - started) / 1000);
  const baselinePerSecond = EVENTS / (baselineMs / 1000);
  const deliveriesPerSecond = EVENTS / (((deliveryTimes.at(-1) as number) - (deliveryTimes[0] as number)) / 1000);

  // Live: events mined one by one at random moments; latency from the mined block to the webhook.
  const mined = new Map<string, number>();
  const before = await receivedCount();
  for (let i = 0; i < LIVE_EVENTS; i++) {
    await new Promise((r) => setTimeout(r, Math.random() * 600));
    const { transactionHash } = await emitter.emitTransfer(BigInt(1_000_000 + i));
    mined.set(transactionHash, Date.now());
  }
  const liveDeadline = Date.now() + (SCAN_INTERVAL + 10) * 1000;
  while ((await receivedCount()) < before + LIVE_EVENTS && Date.now() < liveDeadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const received = await receivedTimes();
  const live = await db.query<{ id: string; hash: string }>(
    `SELECT id, transaction_hash AS hash FROM event_notifier_records WHERE subscription_id = $1 AND transaction_hash = ANY($2)`,
    [subscription.id, [...mined.keys()]],
  );
  const latencies = live.rows
    .map((r) => (received.get(r.id) ?? Number.POSITIVE_INFINITY) - (mined.get(r.hash) as number))
    .sort((a, b) => a - b);
  const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1] ?? Number.POSITIVE_INFINITY;

  console.log(`\nbackfill of ${EVENTS} events, eth_getLogs ranges of ${BLOCK_RANGE} blocks:`);
  console.log(
    `  raw baseline (eth_getLogs + viem decode): ${baselinePerSecond.toFixed(0)} events/s (${seconds(baselineMs)})`,
  );
  console.log(
    `  event notifier, stored:                   ${storedPerSecond.toFixed(0)} events/s (${seconds(storedAt - started)})`,
  );
  console.log(
    `  ratio: ${(storedPerSecond / baselinePerSecond).toFixed(2)} (target ≥ 2.5; stored target ≥ 40,000 events/s)`,
  );
  console.log(
    `  machine CPU while storing, µs per event: ${perUnitByProcess(storing.byProcess, EVENTS / 1000)} ` +
      `(the cores ${(storing.busyShare * 100).toFixed(0)}% busy)`,
  );
  // The physical bound: every event costs this much of the machine's CPU, whichever process spends it.
  console.log(
    `  the most the cores could store at that cost: ${mostPerSecond(storing.busyMs / EVENTS).toFixed(0)} events/s ` +
      `(${((storing.busyMs / EVENTS) * 1000).toFixed(1)} µs of machine CPU per event)`,
  );
  console.log(`  webhook deliveries: ${deliveriesPerSecond.toFixed(0)} /s (target ≥ 2,000)`);
  console.log(
    `live: ${latencies.length}/${LIVE_EVENTS} events delivered, p95 block mined → webhook received ${seconds(p95)} (target ≤ ${SCAN_INTERVAL + 1} s, scanInterval ${SCAN_INTERVAL} s)`,
  );
  figures.push(
    { name: 'backfill, raw baseline', value: Math.round(baselinePerSecond), unit: 'events/s' },
    {
      name: 'backfill, stored',
      value: Math.round(storedPerSecond),
      unit: 'events/s',
      target: { op: '>=', value: 40_000 },
    },
    {
      name: 'backfill ratio stored / baseline',
      value: Number((storedPerSecond / baselinePerSecond).toFixed(2)),
      unit: '',
      target: { op: '>=', value: 2.5 },
    },
    {
      name: 'webhook deliveries',
      value: Math.round(deliveriesPerSecond),
      unit: '/s',
      target: { op: '>=', value: 2_000 },
    },
    { name: 'live events delivered', value: latencies.length, unit: '', target: { op: '>=', value: LIVE_EVENTS } },
  );
  if (Number.isFinite(p95)) {
    figures.push({
      name: 'live p95 block mined → webhook',
      value: Number((p95 / 1000).toFixed(2)),
      unit: 's',
      target: { op: '<=', value: SCAN_INTERVAL + 1 },
    });
  }
  stop.abort();
  await worker.stop();

  // Several events of 1,000 contracts with a filter, against one event of one contract.
  if (process.env.BENCH_WATCH !== '0') figures.push(...(await watchSection(db, masterKey, project.id, stops)));
  if (process.env.BENCH_PROVIDER !== '0') await benchProviderBackfill(db, masterKey, project.id, stops);
  // Live on a chain with 1 s blocks and reorgs: block → webhook, and reorg → removal webhook.
  if (process.env.BENCH_LIVE !== '0') {
    console.log('\nlive, 1 s blocks, confirmations 0, reorgs of depth 4–6 every 10 s:');
    const met = await liveReorgSection();
    figures.push({
      name: 'live with reorgs: targets met',
      value: met ? 1 : 0,
      unit: '',
      target: { op: '>=', value: 1 },
    });
    if (!met) process.exitCode = 1;
  }
  // Webhook endpoints: the attempt log's cost, and 1,000 endpoints with one that never answers.
  if (process.env.BENCH_WEBHOOKS !== '0') {
    const met = await webhookDeliverySections();
    figures.push({
      name: 'webhook endpoints: targets met',
      value: met ? 1 : 0,
      unit: '',
      target: { op: '>=', value: 1 },
    });
    if (!met) process.exitCode = 1;
  }
} finally {
  await cleanup();
}
recordBench('events', figures);
