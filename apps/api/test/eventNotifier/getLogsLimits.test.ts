import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GET_LOGS_REFUSED } from '@mountain/testkit/lab/providerMessages.ts';
import { withRequestBudget } from '#api/chain/requestBudget.ts';
import { ConfigError, loadConfig } from '#api/config/config.ts';
import { readGetLogsRefusal } from '#api/eventNotifier/scanning/getLogsRefusals.ts';
import { RangeSizes } from '#api/eventNotifier/scanning/rangeSizes.ts';

/** A refusal as viem throws it: the endpoint's message in `details`, inside the request error. */
const thrown = (message: string) => Object.assign(new Error('RPC Request failed.'), { cause: { details: message } });

describe('eth_getLogs refusals: what each provider says, and the range to ask instead', () => {
  it('reads the working range and the safe width of Alchemy', () => {
    const { message } = GET_LOGS_REFUSED.alchemy(2_000, 10_000, [0x10n, 0x5ffn]).error;
    assert.deepEqual(readGetLogsRefusal(thrown(message)), {
      kind: 'results',
      workingTo: 0x5ffn,
      safeRange: 2_000,
      maxResults: 10_000,
    });
  });

  it('reads Infura’s working range and its range cap', () => {
    const results = GET_LOGS_REFUSED.infuraResults(10_000, [0xbde5f8n, 0xbde6ffn]).error.message;
    assert.deepEqual(readGetLogsRefusal(thrown(results)), {
      kind: 'results',
      workingTo: 0xbde6ffn,
      safeRange: undefined,
      maxResults: 10_000,
    });
    const range = GET_LOGS_REFUSED.infuraRange(10_001n, 10_000).error.message;
    assert.deepEqual(readGetLogsRefusal(thrown(range)), { kind: 'range', maxRange: 10_000 });
  });

  it('reads the range caps of QuickNode, geth, reth and Alchemy’s free tier', () => {
    const cases: [string, number][] = [
      [GET_LOGS_REFUSED.quicknode(10_000).error.message, 10_000],
      [GET_LOGS_REFUSED.quicknode(5).error.message, 5],
      ['exceed maximum block range: 50000', 50_000],
      ['query exceeds max block range 100000', 100_000],
      ['Under the Free tier plan, you can make eth_getLogs requests with up to a 10 block range', 10],
      ['block range is too wide (maximum 10)', 10],
    ];
    for (const [message, maxRange] of cases) {
      assert.deepEqual(readGetLogsRefusal(thrown(message)), { kind: 'range', maxRange }, message);
    }
    assert.deepEqual(readGetLogsRefusal(thrown('requested range too large')), { kind: 'range', maxRange: undefined });
  });

  it('reads reth’s and dRPC’s decimal working range; a node behind; and leaves other errors alone', () => {
    assert.deepEqual(
      readGetLogsRefusal(thrown('query exceeds max results 20000, retry with the range 22382105-22382515')),
      { kind: 'results', workingTo: 22_382_515n, safeRange: undefined, maxResults: 20_000 },
    );
    assert.deepEqual(readGetLogsRefusal(thrown('query returned more than 10000 results')), {
      kind: 'results',
      workingTo: undefined,
      safeRange: undefined,
      maxResults: 10_000,
    });
    assert.deepEqual(readGetLogsRefusal(thrown('block range extends beyond current head block')), { kind: 'behind' });
    assert.equal(readGetLogsRefusal(thrown('execution reverted')), undefined);
    assert.equal(readGetLogsRefusal(thrown('project ID request rate exceeded')), undefined);
  });

  it('widths: a named cap is kept for the endpoint, a working range is followed, success grows back', () => {
    const endpoint = {};
    const sizes = new RangeSizes(endpoint, 10_000);
    assert.equal(sizes.known, false);
    assert.equal(sizes.refused(100n, 10_099n, { kind: 'range', maxRange: 2_000 }), 2_099n);
    assert.equal(sizes.target, 2_000n);
    // The next scan on the same endpoint starts at its cap, and knows it.
    const again = new RangeSizes(endpoint, 10_000);
    assert.deepEqual([again.target, again.known], [2_000n, true]);
    assert.equal(new RangeSizes({}, 10_000).target, 10_000n);
    // Too many logs: the working range, then twice each width that worked, up to the cap.
    const tooMany = { kind: 'results', workingTo: 299n, safeRange: undefined, maxResults: undefined } as const;
    assert.equal(again.refused(0n, 1_999n, tooMany), 299n);
    assert.equal(again.target, 300n);
    again.succeeded(300n, 9_000);
    assert.equal(again.target, 600n);
    again.succeeded(1_500n, 10);
    assert.equal(again.target, 2_000n);
    // With the results cap named: the width that would hold half of it at the density read, at once.
    const sized = new RangeSizes({}, 10_000);
    sized.refused(0n, 9_999n, { ...tooMany, workingTo: 99n, maxResults: 10_000 });
    assert.equal(sized.target, 100n);
    sized.succeeded(100n, 500);
    assert.equal(sized.target, 1_000n);
    sized.succeeded(100n, 0);
    assert.equal(sized.target, 10_000n);
    // Nothing readable: halved.
    assert.equal(again.refused(0n, 1_999n, undefined), 999n);
  });
});

describe('request budget (RPC_MAX_RPS_<networkId>)', () => {
  it('paces the calls of every request, batches counted per call', async () => {
    const sent: number[] = [];
    const fetchFn = withRequestBudget(async () => {
      sent.push(Date.now());
      return new Response('{}');
    }, 50);
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
    const batch = JSON.stringify(
      Array.from({ length: 10 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' })),
    );
    const started = Date.now();
    await Promise.all([
      fetchFn('http://127.0.0.1:1', { method: 'POST', body: batch }),
      ...Array.from({ length: 20 }, () => fetchFn('http://127.0.0.1:1', { method: 'POST', body: call })),
    ]);
    // 30 calls at 50/s (20 ms each), 200 ms of them at once: the last leaves 29 × 20 − 200 = 380 ms in.
    const elapsed = (sent.at(-1) as number) - started;
    assert.ok(elapsed >= 330 && elapsed < 700, `last request after ${elapsed} ms`);
  });

  it('defaults: 25/s on hosted networks, none on 1337; 0 turns it off; a wrong value is named', () => {
    const secrets = {
      NODE_ENV: 'test',
      MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
      TOKEN_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
    };
    const defaults = loadConfig(secrets).rpcMaxRps;
    assert.equal(defaults[1], 25);
    assert.equal(defaults[1337], undefined);
    const set = loadConfig({ ...secrets, RPC_MAX_RPS_1: '0', RPC_MAX_RPS_1337: '200', RPC_MAX_RPS_137: '100' });
    assert.deepEqual([set.rpcMaxRps[1], set.rpcMaxRps[1337], set.rpcMaxRps[137]], [undefined, 200, 100]);
    assert.throws(
      () => loadConfig({ ...secrets, RPC_MAX_RPS_1: 'fast' }),
      (error) =>
        error instanceof ConfigError &&
        error.problems.includes('RPC_MAX_RPS_1 must be an integer from 0 to 1000000 (got "fast")'),
    );
  });
});
