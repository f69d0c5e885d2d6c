import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { type JsonRpcAnswer, toQuantity } from '../jsonRpc.ts';
import { type LabChain, startLabChain } from './chain.ts';
import { devAccount } from './devAccounts.ts';
import { type ProviderProxy, startProviderProxy } from './providerProxy.ts';

/** Creation code that emits six empty LOG0s and deploys nothing: six logs per transaction, no compiler needed. */
const SIX_LOGS = `0x${'60006000a0'.repeat(6)}00` as Hex;

describe('provider proxy', () => {
  let chain: LabChain;
  let proxy: ProviderProxy;
  /** The blocks holding six logs each. */
  let logBlocks: bigint[];
  before(async () => {
    chain = await startLabChain({ blockTimeSeconds: 0.5 });
    proxy = await startProviderProxy(chain.url);
    await chain.pauseMining();
    logBlocks = [];
    for (let i = 0; i < 4; i++) {
      await chain.rpc('eth_sendTransaction', [{ from: devAccount(0).address, data: SIX_LOGS }]);
      logBlocks.push(await chain.mineNow());
    }
    await chain.mineNow(2);
    await chain.resumeMining();
  });
  after(async () => {
    await proxy?.close();
    await chain?.stop();
  });

  let id = 0;
  async function post(body: unknown) {
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as JsonRpcAnswer & JsonRpcAnswer[] };
  }
  const call = (method: string, params: unknown[] = []) => post({ jsonrpc: '2.0', id: ++id, method, params });
  const result = async <T>(method: string, params: unknown[] = []) => (await call(method, params)).body.result as T;
  const getLogs = (from: bigint, to: bigint | 'latest') =>
    call('eth_getLogs', [{ fromBlock: toQuantity(from), toBlock: to === 'latest' ? to : toQuantity(to) }]);

  it('refuses past the request rate with HTTP 429, Retry-After and the provider’s error, counting each call of a batch', async () => {
    proxy.settings.rateLimit = { requestsPerSecond: 5 };
    try {
      const batch = await post(
        [1, 2, 3, 4, 5].map((n) => ({ jsonrpc: '2.0', id: n, method: 'eth_chainId', params: [] })),
      );
      assert.equal(batch.status, 200);
      assert.equal(batch.body.length, 5);
      const over = await call('eth_chainId');
      assert.equal(over.status, 429);
      assert.equal(over.headers.get('retry-after'), '1');
      assert.deepEqual(over.body.error, {
        code: 429,
        message:
          'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput',
      });
      proxy.settings.rateLimit = { requestsPerSecond: 5, style: 'infura' };
      const infura = await post([1, 2].map((n) => ({ jsonrpc: '2.0', id: n, method: 'eth_chainId', params: [] })));
      assert.equal(infura.status, 429);
      assert.deepEqual(
        infura.body.map((a) => [a.id, a.error?.code, a.error?.message]),
        [
          [1, -32005, 'project ID request rate exceeded'],
          [2, -32005, 'project ID request rate exceeded'],
        ],
      );
      assert.equal(proxy.stats.refusals.rateLimited, 3);
      await sleep(1_000);
      assert.equal((await call('eth_chainId')).status, 200, 'served again after Retry-After');
    } finally {
      proxy.settings.rateLimit = undefined;
    }
  });

  it('adds latency to every request', async () => {
    proxy.settings.latency = { ms: 150, jitterMs: 50 };
    try {
      const started = performance.now();
      await call('eth_chainId');
      const took = performance.now() - started;
      assert.ok(took >= 150 && took < 1_000, `took ${took} ms`);
    } finally {
      proxy.settings.latency = undefined;
    }
  });

  it('refuses eth_getLogs past Alchemy’s caps: a range over the block cap with more logs than the log cap', async () => {
    proxy.settings.getLogs = { style: 'alchemy', maxBlockRange: 3, maxResults: 10 };
    try {
      const [b1, , , b4] = logBlocks as [bigint, bigint, bigint, bigint];
      assert.equal((await getLogs(b1, b1 + 2n)).body.result?.constructor, Array, 'within the range cap: any size');
      const refused = await getLogs(b1, b4);
      assert.deepEqual(refused.body.error, {
        code: -32602,
        message: `Log response size exceeded. You can make eth_getLogs requests with up to a 3 block range and no limit on the response size, or you can request any block range with a cap of 10 logs in the response. Based on your parameters and the response size limit, this block range should work: [${toQuantity(b1)}, ${toQuantity(b1 + 2n)}]`,
      });
      proxy.settings.getLogs = { style: 'alchemy' };
      assert.equal(((await getLogs(b1, b4)).body.result as unknown[]).length, 24, 'under 10K logs: any range');
    } finally {
      proxy.settings.getLogs = undefined;
    }
  });

  it('refuses eth_getLogs past Infura’s caps: the block range, or the number of results', async () => {
    proxy.settings.getLogs = { style: 'infura', maxBlockRange: 3, maxResults: 10 };
    try {
      const [b1, , b3, b4] = logBlocks as [bigint, bigint, bigint, bigint];
      assert.deepEqual((await getLogs(b1, b4)).body.error, { code: -32602, message: 'range 4 exceeds limit of 3' });
      const upper = `0x${b1.toString(16).toUpperCase()}`;
      assert.deepEqual((await getLogs(b1, b3)).body.error, {
        code: -32005,
        message: `query returned more than 10 results. Try with this block range [${upper}, ${upper}].`,
        data: { from: upper, limit: 10, to: upper },
      });
      assert.equal(((await getLogs(b1, b1)).body.result as unknown[]).length, 6);
      proxy.settings.getLogs = { style: 'infura' };
      assert.deepEqual((await getLogs(0n, 10_000n)).body.error, {
        code: -32602,
        message: 'range 10001 exceeds limit of 10000',
      });
    } finally {
      proxy.settings.getLogs = undefined;
    }
  });

  it('refuses eth_getLogs past QuickNode’s range cap with HTTP 413', async () => {
    proxy.settings.getLogs = { style: 'quicknode' };
    try {
      const refused = await getLogs(0n, 10_000n);
      assert.equal(refused.status, 413);
      assert.deepEqual(refused.body.error, { code: -32614, message: 'eth_getLogs is limited to a 10,000 range' });
      assert.equal((await getLogs(0n, 9_999n)).status, 200);
      assert.equal(proxy.stats.refusals.getLogsRange, 3);
      assert.equal(proxy.stats.refusals.getLogsResults, 2);
    } finally {
      proxy.settings.getLogs = undefined;
    }
  });

  it('lets a lagging node answer: the head goes backwards, and what it has not imported is null', async () => {
    await chain.pauseMining();
    try {
      const hash = await chain.rpc<Hex>('eth_sendTransaction', [
        { from: devAccount(1).address, to: devAccount(2).address },
      ]);
      const head = await chain.mineNow();
      assert.equal(BigInt(await result<Hex>('eth_blockNumber')), head);
      assert.notEqual(await result('eth_getTransactionReceipt', [hash]), null);
      proxy.lagFor(60_000, 2);
      const lagged = BigInt(await result<Hex>('eth_blockNumber'));
      assert.equal(lagged, head - 2n, 'a head lower than the one answered before');
      assert.equal(await result('eth_getTransactionReceipt', [hash]), null);
      assert.equal(await result('eth_getTransactionByHash', [hash]), null);
      assert.equal(await result('eth_getBlockByNumber', [toQuantity(head), false]), null);
      assert.equal(
        (await result<{ number: Hex }>('eth_getBlockByNumber', ['latest', false])).number,
        toQuantity(head - 2n),
      );
      const nonce = await result<Hex>('eth_getTransactionCount', [devAccount(1).address, 'latest']);
      assert.equal(nonce, '0x0', 'state as of its own head');
      assert.equal(((await getLogs(logBlocks[0] as bigint, 'latest')).body.result as unknown[]).length, 24);
      proxy.lagFor(0);
      proxy.settings.lag = { blocks: 2, probability: 0.5 };
      const heads = new Set<string>();
      for (let i = 0; i < 40; i++) heads.add(await result<string>('eth_blockNumber'));
      assert.deepEqual([...heads].sort(), [toQuantity(head - 2n), toQuantity(head)].sort(), 'some requests lag');
    } finally {
      proxy.settings.lag = undefined;
      await chain.resumeMining();
    }
  });

  it('counts what it served per method, and goes down, stalls and comes back', async () => {
    assert.ok((proxy.stats.served.eth_blockNumber ?? 0) >= 40);
    assert.ok(proxy.stats.lagged >= 7);
    await proxy.down();
    await assert.rejects(call('eth_chainId'));
    await proxy.up();
    proxy.stall(200);
    const started = performance.now();
    assert.equal(await result('eth_chainId'), toQuantity(1337));
    assert.ok(performance.now() - started >= 150);
  });
});
