import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Task } from 'graphile-worker';
import { type AnvilHandle, startAnvil } from '#api/chain/anvil.ts';
import { asBackfill, BACKFILL_DELIVERY_CONCURRENCY, backfillRunning } from '#api/eventNotifier/backfills.ts';
import { deliverDue } from '#api/eventNotifier/delivery.ts';
import { TASK } from '#api/eventNotifier/queue.ts';
import { SCAN_LOCK_CLASS, scanSubscription } from '#api/eventNotifier/scanner.ts';
import { eventNotifierTasks } from '#api/eventNotifier/tasks.ts';
import { freePort } from '#api/lib/ports.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { deployEmitter, type Emitter, TRANSFER_EVENT } from './helpers/eventEmitter.ts';
import { FAST_SETTINGS } from './helpers/eventNotifier.ts';
import { apiKey, createHarness, type Harness } from './helpers/harness.ts';
import { startReceiver } from './helpers/webhookReceiver.ts';

describe('event notifier: a backfill before its deliveries, a scan that finds its subscription busy', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let key: string;
  let emitter: Emitter;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    // No worker: scans and deliveries are called directly.
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    key = (await h.project('Priority')).apiKey;
    emitter = await deployEmitter(anvil.url);
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  async function subscribe(webhookURL: string) {
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: {
        subscriptionName: 'Priority',
        networkId: 1337,
        address: emitter.address,
        formattedAbiEvent: TRANSFER_EVENT,
        initialBlockNumber: Number(await emitter.publicClient.getBlockNumber()) + 1,
        scanInterval: 5,
        webhookURL,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.eventNotifierSubscription.id as string;
  }

  it('while a backfill runs in the process, its deliveries send at most two webhooks at once', async () => {
    let inFlight = 0;
    let most = 0;
    const r = await startReceiver(() => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => inFlight--, 40);
      return { status: 200, delayMs: 40 };
    });
    const deps = { db: h.db, masterKey: h.masterKey, settings: FAST_SETTINGS };
    try {
      const id = await subscribe(r.url);
      await emitter.emitMany(40, 0);
      await scanSubscription({ db: h.db, chains: h.deps.chains, settings: FAST_SETTINGS }, id);

      assert.equal(backfillRunning(), false);
      const during = await asBackfill(async () => {
        assert.equal(backfillRunning(), true);
        return deliverDue(deps, id);
      });
      assert.equal(backfillRunning(), false);
      assert.equal(during.notified, 40);
      assert.ok(most <= 2 * BACKFILL_DELIVERY_CONCURRENCY, `at most ${most} at once during the backfill`);

      most = 0;
      await emitter.emitMany(40, 100);
      await scanSubscription({ db: h.db, chains: h.deps.chains, settings: FAST_SETTINGS }, id);
      const after = await deliverDue(deps, id);
      assert.equal(after.notified, 40);
      assert.ok(most > 2 * BACKFILL_DELIVERY_CONCURRENCY, `${most} at once without one`);
      await assert.rejects(
        asBackfill(async () => {
          throw new Error('scan failed');
        }),
      );
      assert.equal(backfillRunning(), false, 'a failed backfill does not hold deliveries back');
    } finally {
      await r.close();
    }
  });

  it('a scan that finds its subscription held by another queues itself a second later, once', async () => {
    const r = await startReceiver();
    const stop = new AbortController();
    try {
      const id = await subscribe(r.url);
      const tasks = eventNotifierTasks({
        db: h.db,
        chains: h.deps.chains,
        signers: createSignerProvider(h.keys),
        masterKey: h.masterKey,
        signal: stop.signal,
        eventNotifier: FAST_SETTINGS,
      });
      const holder = await h.db.pool.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [SCAN_LOCK_CLASS, id]);
        // The scan that creating the subscription queued is not the one under test.
        await h.db.query(`SELECT graphile_worker.remove_job('event-notifier:scan:' || $1)`, [id]);
        const scan = tasks[TASK.scan] as Task;
        const before = Date.now();
        await scan({ subscriptionId: id }, {} as never);
        await scan({ subscriptionId: id }, {} as never);
        const { rows } = await h.db.query<{ run_at: Date }>(
          `SELECT run_at FROM graphile_worker.jobs WHERE task_identifier = $1 AND key = 'event-notifier:scan:' || $2`,
          [TASK.scan, id],
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
