import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { deployEmitter, type Emitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { type JsonRpcAnswer, rpcCall } from '@mountain/testkit/jsonRpc.ts';
import { fewestGetLogs, type GetLogsCaps } from '@mountain/testkit/lab/getLogsCaps.ts';
import { lagInterception } from '@mountain/testkit/lab/lag.ts';
import { type ProviderProxy, startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startJsonRpcProxy, startRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type AbiEvent, type Hex, parseAbiItem } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import { createDb } from '#api/db/db.ts';
import { scanQueue } from '#api/eventNotifier/scanning/jobs.ts';
import { readLogRanges } from '#api/eventNotifier/scanning/logRanges.ts';
import { logQuery } from '#api/eventNotifier/scanning/readRange.ts';
import { scanSubscription } from '#api/eventNotifier/scanning/scanner.ts';
import { checkWatch } from '#api/eventNotifier/watch.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { FAST_SETTINGS, subscribeTo, transferSubscription } from '../helpers/eventNotifier.ts';

const event = parseAbiItem(TRANSFER_EVENT) as AbiEvent;

// Backfills through the lab's provider proxy, with its caps scaled down (tens of blocks and logs instead of
// thousands) so that a history of a couple of thousand blocks needs about a hundred requests.
describe('backfill through a hosted provider', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let key: string;
  let emitter: Emitter;
  let firstBlock: number;
  let head: number;
  /** Every Transfer of the history, as `transactionHash:logIndex`, and the block of each. */
  let canonical: Map<string, number>;
  const proxies: { close(): Promise<void> }[] = [];

  before(async () => {
    anvil = await startAnvil({ port: await freePort(), args: ['--gas-limit', '100000000'] });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    key = (await h.project('Backfill')).apiKey;
    emitter = await deployEmitter(anvil.url);
    firstBlock = Number(await emitter.publicClient.getBlockNumber()) + 1;
    // A sparse history: a transfer every 61 blocks, and three clusters of 120 transfers in three blocks.
    for (let cluster = 0; cluster < 3; cluster++) {
      for (let i = 0; i < 10; i++) {
        await emitter.emitTransfer(BigInt(cluster * 100 + i));
        await emitter.mine(60);
      }
      for (let i = 0; i < 3; i++) await emitter.emitMany(40, cluster * 1_000 + i * 40);
    }
    await emitter.mine(30);
    head = Number(await emitter.publicClient.getBlockNumber());
    canonical = await chainLogs(firstBlock, head);
  });
  after(async () => {
    for (const proxy of proxies) await proxy.close(); // closing twice is harmless
    await h?.close();
    await anvil?.stop();
  });

  async function chainLogs(from: number, to: number) {
    const logs = await emitter.publicClient.getLogs({
      address: emitter.address,
      event,
      fromBlock: BigInt(from),
      toBlock: BigInt(to),
    });
    return new Map(logs.map((l) => [`${l.transactionHash}:${l.logIndex}`, Number(l.blockNumber)]));
  }

  async function provider(options: Parameters<typeof startProviderProxy>[1]) {
    const proxy = await startProviderProxy(anvil.url, options);
    proxies.push(proxy);
    return proxy;
  }

  const subscribe = (extra: object = {}) =>
    subscribeTo(h, key, {
      ...transferSubscription(emitter.address),
      subscriptionName: 'Backfilled',
      initialBlockNumber: firstBlock,
      confirmations: 0,
      ...extra,
    });

  /** The records of a subscription (`transactionHash:logIndex` → how many) and its cursor. */
  async function stored(subscriptionId: string) {
    const { rows } = await h.db.query<{ k: string; n: number }>(
      `SELECT transaction_hash || ':' || log_index AS k, count(*)::int AS n FROM event_notifier_records
        WHERE subscription_id = $1 AND removal_of IS NULL AND removed_at IS NULL GROUP BY 1`,
      [subscriptionId],
    );
    return { records: new Map(rows.map((r) => [r.k, r.n])), cursor: await cursorOf(subscriptionId) };
  }

  /** The last block a subscription's scan stored. */
  async function cursorOf(subscriptionId: string) {
    const { rows } = await h.db.query<{ last: string | null }>(
      'SELECT last_scanned_block AS last FROM event_notifier_subscriptions WHERE id = $1',
      [subscriptionId],
    );
    return Number(rows[0]?.last ?? firstBlock - 1);
  }

  /** Resolves once the subscription's cursor is at `block` or past it. */
  const cursorReaches = (subscriptionId: string, block: number) =>
    waitFor(async () => ((await cursorOf(subscriptionId)) >= block ? true : undefined), 30_000, `block ${block}`);

  /** Every canonical log up to the cursor stored exactly once, and none above it. */
  async function assertConsistent(subscriptionId: string, from = firstBlock) {
    const { records, cursor } = await stored(subscriptionId);
    for (const [k, n] of records) {
      assert.equal(n, 1, `${k} stored ${n} times`);
      const block = canonical.get(k);
      assert.ok(block !== undefined && block <= cursor, `${k} (block ${block}) stored but the cursor is at ${cursor}`);
    }
    const expected = [...canonical.values()].filter((b) => b >= from && b <= cursor).length;
    assert.equal(records.size, expected, `records up to block ${cursor}`);
    return { records, cursor };
  }

  const getLogsRequests = (proxy: ProviderProxy) =>
    (proxy.stats.served.eth_getLogs ?? 0) +
    (proxy.stats.refusals.getLogsRange ?? 0) +
    (proxy.stats.refusals.getLogsResults ?? 0);

  async function backfill(caps: GetLogsCaps, maxBlockRange: number, rateLimitStyle: 'alchemy' | 'infura') {
    const proxy = await provider({
      latency: { ms: 20 },
      rateLimit: { requestsPerSecond: 30, style: rateLimitStyle },
      getLogs: caps,
    });
    const chains = createChains({ 1337: proxy.url }, { maxRps: { 1337: 30 } });
    const settings = { ...FAST_SETTINGS, maxBlockRange };
    const id = await subscribe();
    const outcome = await scanSubscription({ db: h.db, chains, settings, queue: scanQueue }, id);
    assert.equal(outcome.kind, 'scanned', JSON.stringify(outcome));
    const { records, cursor } = await assertConsistent(id);
    assert.equal(cursor, head);
    assert.equal(records.size, canonical.size);
    const fewest = fewestGetLogs(caps, {
      from: firstBlock,
      to: head,
      maxRange: maxBlockRange,
      logBlocks: [...canonical.values()],
    });
    const requests = getLogsRequests(proxy);
    assert.ok(
      requests <= fewest * 1.25,
      `${requests} eth_getLogs requests, the fewest that cover the range: ${fewest}`,
    );
    assert.ok((proxy.stats.refusals.rateLimited ?? 0) <= 2, `429s: ${proxy.stats.refusals.rateLimited}`);
    return { proxy, chains, settings, requests, fewest };
  }

  it('Alchemy’s caps: every log stored once, in about the fewest requests', async () => {
    await backfill({ style: 'alchemy', maxBlockRange: 20, maxResults: 50 }, 50, 'alchemy');
  });

  it('Infura’s caps: its range cap learned from its answer, kept for the next subscription on the endpoint', async () => {
    const caps = { style: 'infura', maxBlockRange: 20, maxResults: 50 } as const;
    const { proxy, chains, settings } = await backfill(caps, 100, 'infura');
    const rangeRefusals = proxy.stats.refusals.getLogsRange ?? 0;
    assert.ok(rangeRefusals >= 1 && rangeRefusals <= 2, `range refusals: ${rangeRefusals}`);
    const second = await subscribe();
    await scanSubscription({ db: h.db, chains, settings, queue: scanQueue }, second);
    await assertConsistent(second);
    assert.equal(proxy.stats.refusals.getLogsRange ?? 0, rangeRefusals, 'no range refused to the second subscription');
  });

  it('QuickNode’s range cap: stated in its answer, followed at once', async () => {
    const { proxy } = await backfill({ style: 'quicknode', maxBlockRange: 25 }, 100, 'alchemy');
    assert.equal(proxy.stats.refusals.getLogsRange, 1);
  });

  it('a range refused mid-way for no stated reason is asked again in parts, never skipped', async () => {
    const proxy = await startRpcProxy(anvil.url, await freePort());
    try {
      proxy.settings.getLogsDelayMs = 30;
      const client = createChains({ 1337: proxy.url }).client(1337);
      const chunks = [];
      for await (const chunk of readLogRanges(client, {
        query: logQuery(checkWatch({ address: emitter.address, formattedAbiEvent: TRANSFER_EVENT })),
        fromBlock: BigInt(firstBlock),
        toBlock: BigInt(head),
        maxRange: 40,
      })) {
        chunks.push(chunk);
        if (chunks.length === 3) {
          proxy.settings.failNext = {
            method: 'eth_getLogs',
            times: 4,
            error: { code: -32000, message: 'query timeout exceeded' },
          };
        }
      }
      assert.equal(proxy.settings.failNext?.times, 0, 'four ranges were refused');
      assert.equal(chunks[0]?.fromBlock, BigInt(firstBlock));
      for (let i = 1; i < chunks.length; i++) {
        assert.equal(chunks[i]?.fromBlock, (chunks[i - 1]?.toBlock as bigint) + 1n, 'contiguous ranges');
      }
      assert.equal(chunks.at(-1)?.toBlock, BigInt(head));
      const read = new Set(chunks.flatMap((c) => c.logs.map((l) => `${l.transactionHash}:${l.logIndex}`)));
      assert.equal(read.size, canonical.size);
      // Several ranges in flight, counted at the proxy while it holds each read.
      const most = proxy.delayedGetLogs.most;
      assert.ok(most >= 4, `at most ${most} of ${proxy.served.length} eth_getLogs requests in flight at once`);
    } finally {
      await proxy.close();
    }
  });

  it('a lagging load-balanced node: nothing missed, nothing recorded twice', async () => {
    // Half the requests that read logs go to a node 100 blocks behind (the whole request: a load balancer sends one
    // request to one node); the others, and every other request, to the node in step. With 70 confirmations the
    // scan reads below the finalized block (no checkpoint there) but above that node's head: a scan that took its
    // answer for the whole range would store the range without its events.
    let lagging = true;
    let lagged = 0;
    const front = await startJsonRpcProxy(anvil.url, await freePort(), async (calls) => {
      if (!lagging || !calls.some((c) => c.method === 'eth_getLogs') || Math.random() < 0.5) return {};
      lagged++;
      const seen = BigInt(await rpcCall<Hex>(anvil.url, 'eth_blockNumber')) - 100n;
      return { intercept: (call) => lagInterception(anvil.url, call, seen) };
    });
    try {
      const chains = createChains({ 1337: front.url });
      const deps = { db: h.db, chains, settings: FAST_SETTINGS, queue: scanQueue };
      const from = Number(await emitter.publicClient.getBlockNumber()) + 1;
      const id = await subscribe({ initialBlockNumber: from, confirmations: 70 });
      await emitter.mine(70);
      for (let round = 0; round < 20; round++) {
        await emitter.emitTransfer(BigInt(5_000 + round));
        await emitter.mine(5);
        await scanSubscription(deps, id);
      }
      assert.ok(lagged > 0);
      lagging = false;
      await emitter.mine(70);
      const now = Number(await emitter.publicClient.getBlockNumber());
      await scanSubscription(deps, id);
      canonical = await chainLogs(firstBlock, now);
      const { records, cursor } = await assertConsistent(id, from);
      assert.equal(cursor, now - 70);
      assert.equal(records.size, 20);
    } finally {
      await front.close();
    }
  });

  it('a range that cannot be stored: the ranges written beside it roll back, the cursor stops before it', async () => {
    // The refused block ends a range, and the next range starts with another block of the same cluster of logs.
    const blocks = new Set(canonical.values());
    const refused = Math.min(...[...blocks].filter((b) => blocks.has(b + 1)));
    const initialBlockNumber = refused + 1 - 5 * 20;
    const id = await subscribe({ initialBlockNumber });
    // PostgreSQL refuses the records of one block, half a second after its insert began; a sequence (not undone by
    // a rollback) notes the highest block whose insert was attempted meanwhile.
    await h.db.query(`
      CREATE SEQUENCE test_highest_block MINVALUE 0 START 0;
      CREATE FUNCTION test_refuse_block() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.subscription_id = '${id}' THEN
          IF NEW.block_number > (SELECT last_value FROM test_highest_block) THEN
            PERFORM setval('test_highest_block', NEW.block_number);
          END IF;
          IF NEW.block_number = ${refused} THEN
            PERFORM pg_sleep(0.5);
            RAISE EXCEPTION 'block % refused', NEW.block_number;
          END IF;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_refuse_block BEFORE INSERT ON event_notifier_records
        FOR EACH ROW EXECUTE FUNCTION test_refuse_block();`);
    const chains = createChains({ 1337: anvil.url });
    const settings = { ...FAST_SETTINGS, maxBlockRange: 20 };
    try {
      await assert.rejects(scanSubscription({ db: h.db, chains, settings, queue: scanQueue }, id), /refused/);
      const attempted = (await h.db.query<{ n: number }>('SELECT last_value AS n FROM test_highest_block')).rows[0];
      assert.ok(Number(attempted?.n) > refused, 'a later range was written beside the refused one');
      const failed = await assertConsistent(id, initialBlockNumber);
      assert.equal(failed.cursor, refused - 20, 'the cursor is at the end of the range before the refused one');
    } finally {
      await h.db.query(`DROP TRIGGER test_refuse_block ON event_notifier_records;
        DROP FUNCTION test_refuse_block(); DROP SEQUENCE test_highest_block;`);
    }
    const outcome = await scanSubscription({ db: h.db, chains, settings, queue: scanQueue }, id);
    assert.equal(outcome.kind, 'scanned', JSON.stringify(outcome));
    const { records, cursor } = await assertConsistent(id, initialBlockNumber);
    assert.equal(cursor, Number(await emitter.publicClient.getBlockNumber()));
    assert.equal(records.size, [...canonical.values()].filter((b) => b >= initialBlockNumber).length);
  });

  // A scan waiting for a second connection while it holds the only one would never end: the timeout fails it.
  it(
    'a pool with no connection to spare: the ranges are written one at a time, and the scan ends',
    {
      timeout: 30_000,
    },
    async () => {
      const connectionString = (h.db.pool.options as { connectionString: string }).connectionString;
      const db = createDb(connectionString, { max: 1 });
      try {
        const id = await subscribe();
        const chains = createChains({ 1337: anvil.url });
        const settings = { ...FAST_SETTINGS, maxBlockRange: 50 };
        const outcome = await scanSubscription({ db, chains, settings, queue: scanQueue }, id);
        assert.equal(outcome.kind, 'scanned', JSON.stringify(outcome));
        const { records, cursor } = await assertConsistent(id);
        assert.equal(cursor, Number(await emitter.publicClient.getBlockNumber()));
        assert.equal(records.size, canonical.size);
      } finally {
        await db.close();
      }
    },
  );

  it('stopped or cut off mid-backfill: the cursor is at the last range stored in order, its records all there', async () => {
    const proxy = await provider({
      latency: { ms: 40 },
      getLogs: { style: 'infura', maxBlockRange: 20, maxResults: 50 },
    });
    // In front of it, a count of the eth_getLogs requests in flight at once.
    let inFlight = 0;
    let most = 0;
    const counter = await startJsonRpcProxy(proxy.url, await freePort(), (calls) => {
      if (!calls.some((c) => c.method === 'eth_getLogs')) return {};
      most = Math.max(most, ++inFlight);
      let answered = false;
      const done = (answer: JsonRpcAnswer) => {
        if (!answered) inFlight--;
        answered = true;
        return answer;
      };
      return { intercept: (call) => (call.method === 'eth_getLogs' ? { rewrite: done } : undefined) };
    });
    proxies.push(counter);
    const chains = createChains({ 1337: counter.url }, { maxRps: { 1337: 100 } });
    const settings = { ...FAST_SETTINGS, maxBlockRange: 20 };
    const stop = new AbortController();
    const id = await subscribe({ initialBlockNumber: firstBlock });
    // Stopped once five ranges or more are stored (reads go eight at once by then), with most of the history to go.
    void cursorReaches(id, firstBlock + 100).then(
      () => stop.abort(),
      () => {},
    );
    const outcome = await scanSubscription({ db: h.db, chains, settings, queue: scanQueue, signal: stop.signal }, id);
    assert.equal(outcome.kind, 'scanned');
    const stopped = await assertConsistent(id);
    assert.ok(stopped.cursor > firstBlock && stopped.cursor < head, `stopped at ${stopped.cursor}`);
    assert.ok(most >= 4, `at most ${most} eth_getLogs requests in flight at once`);

    // Cut off: the provider goes away mid-scan, once the scan has stored five ranges more.
    void cursorReaches(id, stopped.cursor + 100).then(
      () => counter.close(),
      () => {},
    );
    const cut = await scanSubscription({ db: h.db, chains, settings, queue: scanQueue }, id);
    assert.equal(cut.kind, 'failed');
    const after = await assertConsistent(id);
    assert.ok(
      after.cursor > stopped.cursor && after.cursor < head,
      `cut off at ${after.cursor}, stopped at ${stopped.cursor}, head ${head}`,
    );
  });
});
