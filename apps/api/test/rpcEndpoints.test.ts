// A network of several RPC endpoints (RPC_URL_<id> a list) on a lab chain with half-second blocks: one endpoint
// killed mid-run, one lagging 20 blocks, one answering every request 429. Each time, every execution is final on
// the canonical chain exactly once, the head the platform reads never goes back, each raw transaction goes to every
// endpoint not cooling down, and /readyz names the endpoint that is not well.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startJsonRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { createChains } from '#api/chain/chains.ts';
import { assertFinalOnChain } from '#api-testing/canonicalTruth.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, incrementMany } from '#api-testing/transactionFlow.ts';

const SETTINGS = { lagGraceMs: 2_000, resendDroppedAfterMs: 1_000, finalityPollMs: 300 };

describe('a network of several RPC endpoints', () => {
  let chain: LabChain;
  let counter: `0x${string}`;
  const closing: (() => Promise<unknown>)[] = [];

  before(async () => {
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: 2 });
    counter = await deployCounter(chain.url);
  });
  after(async () => {
    for (const close of closing.reverse()) await close().catch(() => {});
    await chain?.stop();
  });

  async function platform(urls: string[]): Promise<Harness> {
    const h = await createHarness({ rpcUrls: { 1337: urls.join(',') }, worker: true, transactions: SETTINGS });
    closing.push(() => h.close());
    return h;
  }
  const readyz = async (h: Harness) => (await h.app.inject({ method: 'GET', url: '/readyz' })).json();

  it('an endpoint killed mid-run: reads and sends go on through the other, nothing lost or sent twice', async () => {
    const doomed = await startProviderProxy(chain.url, { port: await freePort() });
    const healthy = await startProviderProxy(chain.url, { port: await freePort() });
    closing.push(() => healthy.close());
    const h = await platform([doomed.url, healthy.url]);
    const p = await counterProject(h, counter, ['increment']);
    await incrementMany(h, p, 10, 'before-', { spacingMs: 50 });
    // Both endpoints took the raw transactions: the same bytes to each.
    await waitFor(async () => ((doomed.stats.served.eth_sendRawTransaction ?? 0) >= 10 ? true : undefined));
    assert.ok((healthy.stats.served.eth_sendRawTransaction ?? 0) >= 10, JSON.stringify(healthy.stats.served));
    await doomed.close();
    await incrementMany(h, p, 20, 'after-', { spacingMs: 50 });
    await assertFinalOnChain(h.db, (method, params) => chain.rpc(method, params), p.projectId, { contract: counter });
    const { rows } = await h.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions WHERE project_id = $1 AND status = 'succeeded'`,
      [p.projectId],
    );
    assert.equal(rows[0]?.n, 30);
    const [first, second] = h.deps.chains.endpoints(1337);
    assert.equal(first?.state, 'failing');
    assert.ok((first?.failed ?? 0) > 0);
    assert.equal(second?.state, 'ok');
    const health = await readyz(h);
    assert.equal(health.status, 'degraded');
    assert.equal(health.checks['chain:1337'], 'ok');
    assert.match(health.checks[`chain:1337:${first?.name}`], /^failing: /);
    assert.equal(health.checks[`chain:1337:${second?.name}`], 'ok');
  });

  it('an endpoint 20 blocks behind is ranked after the other; the head read never goes back', async () => {
    const behind = await startProviderProxy(chain.url, { port: await freePort(), lag: { blocks: 20 } });
    const healthy = await startProviderProxy(chain.url, { port: await freePort() });
    closing.push(
      () => behind.close(),
      () => healthy.close(),
    );
    await chain.mineNow(25);
    const h = await platform([behind.url, healthy.url]);
    const client = h.deps.chains.client(1337);
    const heads: bigint[] = [];
    // Long enough for a look at every endpoint's head (every 2 s) to rank the lagging one last.
    await waitFor(async () => {
      heads.push(await client.getBlockNumber({ cacheTime: 0 }));
      return h.deps.chains.endpoints(1337)[0]?.state === 'lagging' ? true : undefined;
    }, 10_000);
    const ranked = heads.length;
    for (let i = 0; i < 20; i++) {
      heads.push(await client.getBlockNumber({ cacheTime: 0 }));
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = heads.slice(ranked - 1);
    for (let i = 1; i < after.length; i++) {
      assert.ok((after[i] as bigint) >= (after[i - 1] as bigint), `head ${after[i]} after ${after[i - 1]}`);
    }
    const p = await counterProject(h, counter, ['increment']);
    await incrementMany(h, p, 10, 'lag-', { spacingMs: 50 });
    await assertFinalOnChain(h.db, (method, params) => chain.rpc(method, params), p.projectId, { contract: counter });
    const health = await readyz(h);
    const name = h.deps.chains.endpoints(1337)[0]?.name as string;
    assert.match(health.checks[`chain:1337:${name}`], /^lagging: head \d+$/);
  });

  it('an endpoint answering 429 to everything is left for the other at once', async () => {
    let refused = 0;
    const limited = await startJsonRpcProxy(chain.url, await freePort(), () => {
      refused++;
      return {
        refuse: {
          status: 429,
          body: { jsonrpc: '2.0', id: 1, error: { code: 429, message: 'Your app has exceeded its compute units' } },
        },
      };
    });
    const healthy = await startProviderProxy(chain.url, { port: await freePort() });
    closing.push(
      () => limited.close(),
      () => healthy.close(),
    );
    const h = await platform([limited.url, healthy.url]);
    const p = await counterProject(h, counter, ['increment']);
    const started = Date.now();
    await incrementMany(h, p, 10, 'limited-', { spacingMs: 50 });
    await assertFinalOnChain(h.db, (method, params) => chain.rpc(method, params), p.projectId, { contract: counter });
    assert.ok(refused > 0, 'the limited endpoint was asked');
    assert.ok(Date.now() - started < 45_000, 'no request waited out the 429s');
    assert.equal(h.deps.chains.endpoints(1337)[0]?.state, 'failing');
    assert.match(h.deps.chains.endpoints(1337)[0]?.lastError ?? '', /rate|429|exceeded/i);
  });

  it('a read refused by the node itself (a revert) is not asked again of the next endpoint', async () => {
    const a = await startProviderProxy(chain.url, { port: await freePort() });
    const b = await startProviderProxy(chain.url, { port: await freePort() });
    closing.push(
      () => a.close(),
      () => b.close(),
    );
    const client = createChains({ 1337: `${a.url},${b.url}` }).client(1337);
    await assert.rejects(client.call({ to: counter, data: '0xdeadbeef' }), (error: Error) =>
      /revert/i.test(error.message),
    );
    assert.equal(b.stats.served.eth_call ?? 0, 0, 'the second endpoint was not asked');
    assert.equal(createChains({ 1337: a.url }).endpoints(1337).length, 0, 'one endpoint: no ranking');
  });
});
