import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { deployEmitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { eventually, type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/workerProcess.ts';

describe('event notifier across worker processes', () => {
  let anvil: AnvilHandle;
  let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
  let h: Harness;
  let key: string;
  let receiver: Receiver;
  const workers: WorkerProcess[] = [];

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    proxy = await startRpcProxy(anvil.url, await freePort());
    h = await createHarness({ rpcUrls: { 1337: proxy.url } });
    key = (await h.project('Workers')).apiKey;
    receiver = await startReceiver();
  });
  after(async () => {
    for (const w of workers) await w.kill();
    await receiver?.close();
    await h?.close();
    await proxy?.close();
    await anvil?.stop();
  });

  async function worker(env: Record<string, string> = {}) {
    const w = await spawnWorker({
      DATABASE_URL: h.db.pool.options.connectionString as string,
      RPC_URL_1337: proxy.url,
      MASTER_KEY: h.masterKey.toString('base64'),
      TOKEN_SIGNING_KEY: h.tokenSigningKey.toString('base64'),
      WEBHOOK_BACKOFF_BASE_MS: '200',
      ...env,
    });
    workers.push(w);
    return w;
  }
  async function subscribe(address: string, initialBlockNumber: number) {
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: {
        subscriptionName: 'Workers',
        networkId: 1337,
        address,
        formattedAbiEvent: TRANSFER_EVENT,
        initialBlockNumber,
        scanInterval: 5,
        webhookURL: receiver.url,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.eventNotifierSubscription as { id: string };
  }
  const count = async (subscriptionId: string) =>
    (
      await h.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM event_notifier_records WHERE subscription_id = $1',
        [subscriptionId],
      )
    ).rows[0]?.n;
  const deliveredIds = (ids: Set<string>) =>
    receiver.deliveries.map((d) => d.headers['webhook-id'] as string).filter((id) => ids.has(id));

  it('two worker processes at once: each log is recorded and delivered once', async () => {
    const emitter = await deployEmitter(anvil.url);
    const start = await emitter.emitMany(150, 0);
    await emitter.emitMany(150, 150);
    const [a, b] = await Promise.all([worker(), worker()]);
    const subscriptions = [
      await subscribe(emitter.address, Number(start.blockNumber)),
      await subscribe(emitter.address, Number(start.blockNumber)),
    ];
    await emitter.emitMany(50, 300);
    const { rows } = await eventually(
      async () => {
        const result = await h.db.query<{ id: string }>(
          `SELECT id FROM event_notifier_records WHERE subscription_id = ANY($1::uuid[]) AND status = 'notified'`,
          [subscriptions.map((s) => s.id)],
        );
        return result.rows.length === 700 && result;
      },
      60_000,
      '700 notified records',
    );
    const ids = new Set(rows.map((r) => r.id));
    const delivered = deliveredIds(ids);
    assert.equal(delivered.length, 700, 'one delivery per record');
    assert.equal(new Set(delivered).size, 700);
    for (const s of subscriptions) assert.equal(await count(s.id), 350);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a worker killed (SIGKILL) mid-scan: after a restart no record is lost or duplicated, no block skipped', async () => {
    const emitter = await deployEmitter(anvil.url);
    const blocks: number[] = [];
    for (let i = 0; i < 24; i++) blocks.push(Number((await emitter.emitMany(3, i * 3)).blockNumber));
    proxy.settings.getLogsDelayMs = 200;
    try {
      // One block per eth_getLogs, each slowed: the scan takes seconds, so the kill lands in the middle of it.
      const slow = { EVENT_SCAN_MAX_BLOCK_RANGE: '1' };
      const first = await worker(slow);
      const s = await subscribe(emitter.address, blocks[0] as number);
      const progress = async () =>
        (
          await h.db.query<{ last: number | null }>(
            'SELECT last_scanned_block AS last FROM event_notifier_subscriptions WHERE id = $1',
            [s.id],
          )
        ).rows[0]?.last ?? null;
      await eventually(async () => ((await progress()) ?? 0) >= (blocks[5] as number), 40_000, 'scan progress');
      await first.kill();

      // What was committed is whole: every event up to lastScannedBlock, nothing beyond.
      const last = (await progress()) as number;
      assert.ok(last < (blocks.at(-1) as number), 'killed before the end');
      assert.equal(await count(s.id), blocks.filter((b) => b <= last).length * 3);

      await worker(slow);
      await eventually(async () => (await count(s.id)) === 72, 60_000, 'all 72 records');
      const perBlock = await h.db.query<{ block: number; n: number }>(
        `SELECT block_number AS block, count(*)::int AS n FROM event_notifier_records WHERE subscription_id = $1
          GROUP BY block_number ORDER BY block_number`,
        [s.id],
      );
      assert.deepEqual(
        perBlock.rows,
        blocks.map((block) => ({ block, n: 3 })),
      );
      const ids = new Set(
        (
          await h.db.query<{ id: string }>('SELECT id FROM event_notifier_records WHERE subscription_id = $1', [s.id])
        ).rows.map((r) => r.id),
      );
      await eventually(async () => new Set(deliveredIds(ids)).size === 72, 40_000, 'every record delivered');
    } finally {
      proxy.settings.getLogsDelayMs = 0;
    }
  });
});
