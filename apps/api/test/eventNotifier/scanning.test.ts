import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { deployEmitter, type Emitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { eventually, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { Task } from 'graphile-worker';
import { createChains } from '#api/chain/chains.ts';
import { deliverDue } from '#api/eventNotifier/delivery/delivery.ts';
import { deliveryQueue } from '#api/eventNotifier/delivery/jobs.ts';
import { SCAN_LOCK_CLASS, scanJob, scanQueue } from '#api/eventNotifier/scanning/jobs.ts';
import { readLogRanges } from '#api/eventNotifier/scanning/logRanges.ts';
import { logQuery } from '#api/eventNotifier/scanning/readRange.ts';
import { scanSubscription } from '#api/eventNotifier/scanning/scanner.ts';
import type { RecordView } from '#api/eventNotifier/subscriptions/records.ts';
import { checkWatch } from '#api/eventNotifier/watch.ts';
import { createTaskList } from '#api/jobs/taskList.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { FAST_SETTINGS, startTestWorker } from '../helpers/eventNotifier.ts';

describe('event scanner', () => {
  let anvil: AnvilHandle;
  let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
  let h: Harness;
  let key: string;
  let emitter: Emitter;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    proxy = await startRpcProxy(anvil.url, await freePort());
    // The API and the scanner see the chain through the proxy; no worker: scans are called directly.
    h = await createHarness({ rpcUrls: { 1337: proxy.url } });
    key = (await h.project('Scanner')).apiKey;
    emitter = await deployEmitter(anvil.url);
  });
  after(async () => {
    await h?.close();
    await proxy?.close();
    await anvil?.stop();
  });

  const deps = (settings = FAST_SETTINGS) => ({ db: h.db, chains: h.deps.chains, settings, queue: scanQueue });
  async function subscribe(extra: object = {}) {
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: {
        subscriptionName: 'Scanned',
        networkId: 1337,
        address: emitter.address,
        formattedAbiEvent: TRANSFER_EVENT,
        initialBlockNumber: 0,
        scanInterval: 5,
        ...extra,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.eventNotifierSubscription;
  }
  const records = async (subscriptionId: string): Promise<RecordView[]> =>
    (await h.call('get-records', { headers: apiKey(key), body: { subscriptionId } })).body.eventNotifierRecords;
  const subscription = async (id: string) =>
    (await h.call('get-subscriptions', { headers: apiKey(key) })).body.eventNotifierSubscriptions.find(
      (s: { id: string }) => s.id === id,
    );

  const nextBlock = async () => Number(await emitter.publicClient.getBlockNumber()) + 1;

  it('splits block ranges the provider refuses into smaller contiguous ones', async () => {
    const first = await emitter.emitTransfer(1n);
    for (let i = 0; i < 12; i++) await emitter.emitTransfer(BigInt(i + 2));
    const head = await emitter.publicClient.getBlockNumber();
    proxy.settings.maxLogRange = 4;
    try {
      const chunks = [];
      for await (const chunk of readLogRanges(createChains({ 1337: proxy.url }).client(1337), {
        query: logQuery(checkWatch({ address: emitter.address, formattedAbiEvent: TRANSFER_EVENT })),
        fromBlock: first.blockNumber,
        toBlock: head,
        maxRange: 16,
      })) {
        chunks.push(chunk);
      }
      assert.ok(proxy.refused.length > 0, 'the provider refused some ranges');
      assert.equal(chunks[0]?.fromBlock, first.blockNumber);
      for (let i = 1; i < chunks.length; i++) {
        assert.equal(chunks[i]?.fromBlock, (chunks[i - 1]?.toBlock as bigint) + 1n, 'contiguous ranges');
      }
      assert.equal(chunks.at(-1)?.toBlock, head);
      assert.equal(
        chunks.reduce((n, c) => n + c.logs.length, 0),
        13,
      );

      const s = await subscribe({ initialBlockNumber: Number(first.blockNumber) });
      const outcome = await scanSubscription(deps({ ...FAST_SETTINGS, maxBlockRange: 10_000 }), s.id);
      assert.deepEqual(outcome, {
        kind: 'scanned',
        fromBlock: Number(first.blockNumber),
        toBlock: Number(head),
        stored: 13,
        returned: 13,
      });
      assert.equal((await records(s.id)).length, 13);
      const after = await subscription(s.id);
      assert.equal(after.lastScannedBlock, Number(head));
      assert.equal(after.scanStatus, 'idle');
    } finally {
      proxy.settings.maxLogRange = undefined;
    }
  });

  it('stops at the head minus the confirmation depth; a scan again stores nothing twice', async () => {
    const start = await emitter.emitTransfer(100n);
    await emitter.emitTransfer(101n);
    await emitter.emitTransfer(102n);
    const s = await subscribe({ initialBlockNumber: Number(start.blockNumber), confirmations: 2 });
    const settings = FAST_SETTINGS;
    await scanSubscription(deps(settings), s.id);
    assert.deepEqual(
      (await records(s.id)).map((r) => r.decodedLog.value),
      ['100'],
    );
    await emitter.mine(2);
    await scanSubscription(deps(settings), s.id);
    // As after a crash between writing records and noting progress: scanning the same blocks again.
    await h.db.query('UPDATE event_notifier_subscriptions SET last_scanned_block = NULL WHERE id = $1', [s.id]);
    await scanSubscription(deps(settings), s.id);
    const stored = await records(s.id);
    assert.deepEqual(
      stored.map((r) => r.decodedLog.value),
      ['102', '101', '100'],
    );
    assert.ok(
      stored.every((r) => r.status === 'scanned'),
      'no webhook: records stay scanned',
    );
  });

  it('keeps its cadence: a scan that runs before its time does not push the next one back', async () => {
    const s = await subscribe({ initialBlockNumber: await nextBlock() });
    await scanSubscription(deps(), s.id);
    const planned = (await subscription(s.id)).nextScanAt;
    assert.ok(Date.parse(planned) > Date.now() + 3_000, `next scan planned an interval later (${planned})`);
    // An extra scan (the sweep queues one for a subscription it finds scanning) leaves the plan as it was.
    await scanSubscription(deps(), s.id);
    assert.equal((await subscription(s.id)).nextScanAt, planned);
    const { rows } = await h.db.query<{ run_at: Date }>(
      `SELECT run_at FROM graphile_worker.jobs WHERE key = 'event-notifier:scan:' || $1`,
      [s.id],
    );
    assert.equal(rows[0]?.run_at.toISOString(), planned);
  });

  it('fills blockTimestamp from the block when the provider’s logs lack it', async () => {
    const mined = await emitter.emitTransfer(250n);
    const s = await subscribe({ initialBlockNumber: Number(mined.blockNumber) });
    proxy.settings.stripLogTimestamps = true;
    try {
      await scanSubscription(deps(), s.id);
    } finally {
      proxy.settings.stripLogTimestamps = false;
    }
    const block = await emitter.publicClient.getBlock({ blockNumber: mined.blockNumber });
    const [record] = await records(s.id);
    assert.equal(record?.blockTimestamp, new Date(Number(block.timestamp) * 1000).toISOString());
    assert.equal(record?.blockHash, block.hash);
  });

  it('confirmations: an event is recorded once that many blocks are on top of it', async () => {
    const mined = await emitter.emitTransfer(260n);
    const s = await subscribe({ initialBlockNumber: Number(mined.blockNumber), confirmations: 2 });
    assert.equal(s.confirmations, 2);
    assert.equal((await subscribe()).confirmations, 0, 'by default the network’s depth: 0 on 1337');
    const mine = () => emitter.mine(1);
    await scanSubscription(deps(), s.id);
    assert.deepEqual(await records(s.id), [], 'no block on top yet');
    await mine();
    await scanSubscription(deps(), s.id);
    assert.deepEqual(await records(s.id), [], 'one block on top');
    await mine();
    await scanSubscription(deps(), s.id);
    assert.deepEqual(
      (await records(s.id)).map((r) => r.blockNumber),
      [Number(mined.blockNumber)],
      'two blocks on top: recorded',
    );
    // A subscription from before the field existed follows the network's depth of the deployment.
    await h.db.query('UPDATE event_notifier_subscriptions SET confirmations = NULL WHERE id = $1', [s.id]);
    assert.equal((await subscription(s.id)).confirmations, 0);
    const late = await emitter.emitTransfer(261n);
    await h.db.query('UPDATE event_notifier_subscriptions SET initial_block_number = $2 WHERE id = $1', [
      s.id,
      Number(late.blockNumber),
    ]);
    const deep = { ...FAST_SETTINGS, confirmations: { ...FAST_SETTINGS.confirmations, 1337: 1 } };
    await scanSubscription(deps(deep), s.id);
    assert.equal((await records(s.id)).length, 1, 'the network depth of 1: not yet');
    await mine();
    await scanSubscription(deps(deep), s.id);
    assert.equal((await records(s.id)).length, 2, 'the network depth of 1: recorded');
  });

  it('confirmations: a value out of range names the field', async () => {
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: {
        subscriptionName: 'Too deep',
        networkId: 1337,
        address: emitter.address,
        formattedAbiEvent: TRANSFER_EVENT,
        initialBlockNumber: 0,
        scanInterval: 5,
        confirmations: 10_001,
      },
    });
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(res.body), /body\.confirmations/);
  });

  it('scanEnabled false: the scan does nothing', async () => {
    await emitter.emitTransfer(200n);
    const s = await subscribe();
    await h.db.query('UPDATE event_notifier_subscriptions SET scan_enabled = false WHERE id = $1', [s.id]);
    assert.deepEqual(await scanSubscription(deps(), s.id), { kind: 'skipped' });
    assert.equal((await records(s.id)).length, 0);
  });

  it('RPC unreachable → scanStatus failed with a readable message; recovers by itself when it returns', async () => {
    const receiver = await startReceiver();
    const worker = await startTestWorker(h);
    try {
      await proxy.down();
      const live = await emitter.emitTransfer(300n);
      const s = await subscribe({ initialBlockNumber: Number(live.blockNumber), webhookURL: receiver.url });
      const failed = await eventually(
        async () => {
          const now = await subscription(s.id);
          return now.scanStatus === 'failed' && now;
        },
        10_000,
        'a failed scan',
      );
      assert.match(failed.lastScanFailureMessage, /^Could not reach the RPC of network 1337 \(ECONNREFUSED\)/);
      assert.doesNotMatch(failed.lastScanFailureMessage, /127\.0\.0\.1/, 'the RPC URL is not shown');
      assert.equal(failed.lastScannedBlock, null);
      assert.ok(Date.parse(failed.nextScanAt) > Date.now() - 1_000, 'the next scan is planned');

      await proxy.up();
      const recovered = await eventually(
        async () => {
          const now = await subscription(s.id);
          return now.scanStatus === 'idle' && now.lastScannedBlock !== null && now;
        },
        15_000,
        'a recovered scan',
      );
      assert.equal(recovered.lastScanFailureMessage, null);
      await receiver.waitFor(() => receiver.deliveries.length === 1, 10_000, 'the webhook');
      assert.deepEqual(
        (await records(s.id)).map((r) => r.decodedLog.value),
        ['300'],
      );
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('a backfill is stored before its webhooks are sent, for at most the hold', async () => {
    const r = await startReceiver();
    // One block per range: twenty blocks of events make the first scan a backfill, longer than one round of the
    // ranges read at once.
    const settings = { ...FAST_SETTINGS, maxBlockRange: 1 };
    const delivery = { db: h.db, masterKey: h.masterKey, settings, queue: deliveryQueue };
    const deliveryRunAt = async (id: string) =>
      (
        await h.db.query<{ run_at: Date }>(
          `SELECT run_at FROM graphile_worker.jobs WHERE key = 'event-notifier:deliver:' || $1`,
          [id],
        )
      ).rows[0]?.run_at.getTime();
    try {
      const id = (await subscribe({ initialBlockNumber: await nextBlock(), webhookURL: r.url })).id as string;
      for (let i = 0; i < 20; i++) await emitter.emitTransfer(BigInt(i + 1));
      proxy.settings.getLogsDelayMs = 300;
      let scan: Promise<unknown>;
      try {
        scan = scanSubscription(deps(settings), id);
        await eventually(async () => (await records(id)).length > 0, 5_000, 'the first range stored');
        // Mid-backfill: records stored, nothing sent, and the delivery waits for the hold to end.
        const midway = await deliverDue(delivery, id);
        assert.deepEqual(midway, { notified: 0, retrying: 0, failed: 0 });
        const held = await deliveryRunAt(id);
        assert.ok(held && held > Date.now() + settings.backfillHoldMs - 5_000, 'delivery queued for the hold’s end');
        await scan;
      } finally {
        proxy.settings.getLogsDelayMs = 0;
      }
      // The scan ended: its delivery is due now, and every record goes out.
      assert.ok(((await deliveryRunAt(id)) ?? Number.POSITIVE_INFINITY) <= Date.now() + 1_000, 'delivery due now');
      assert.equal((await deliverDue(delivery, id)).notified, 20);
      assert.equal(r.deliveries.length, 20);

      // Past the hold, webhooks go out while the backfill still runs.
      await emitter.emitTransfer(21n);
      await scanSubscription(deps(), id);
      await h.db.query(
        `UPDATE event_notifier_subscriptions SET backfill_started_at = now() - $2 * interval '1 millisecond' WHERE id = $1`,
        [id, settings.backfillHoldMs + 1_000],
      );
      assert.equal((await deliverDue(delivery, id)).notified, 1);
      assert.equal(r.deliveries.length, 21);
    } finally {
      await r.close();
    }
  });

  it('a scan that finds its subscription held by another queues itself a second later, once', async () => {
    const r = await startReceiver();
    const stop = new AbortController();
    try {
      const id = (await subscribe({ initialBlockNumber: await nextBlock(), webhookURL: r.url })).id as string;
      const tasks = createTaskList(
        {
          db: h.db,
          chains: h.deps.chains,
          signers: createSignerProvider(h.keys),
          masterKey: h.masterKey,
          signal: stop.signal,
          eventNotifier: FAST_SETTINGS,
        },
        [scanJob],
      );
      const holder = await h.db.pool.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [SCAN_LOCK_CLASS, id]);
        // The scan that creating the subscription queued is not the one under test.
        await h.db.query(`SELECT graphile_worker.remove_job('event-notifier:scan:' || $1)`, [id]);
        const scan = tasks[scanJob.name] as Task;
        const before = Date.now();
        await scan({ subscriptionId: id }, {} as never);
        await scan({ subscriptionId: id }, {} as never);
        const { rows } = await h.db.query<{ run_at: Date }>(
          `SELECT run_at FROM graphile_worker.jobs WHERE task_identifier = $1 AND key = 'event-notifier:scan:' || $2`,
          [scanJob.name, id],
        );
        assert.equal(rows.length, 1);
        const delay = (rows[0] as { run_at: Date }).run_at.getTime() - before;
        assert.ok(delay >= 900 && delay < 5_000, `queued ${delay} ms later`);
      } finally {
        await holder.query('SELECT pg_advisory_unlock($1, hashtext($2))', [SCAN_LOCK_CLASS, id]);
        holder.release();
      }
    } finally {
      stop.abort();
      await r.close();
    }
  });
});
