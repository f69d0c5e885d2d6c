// The chain clients against a provider's rate limit: the lab's provider proxy in front of a real anvil refuses past
// its rate as Alchemy and Infura do (HTTP 429, Retry-After, their JSON-RPC errors); a loopback server answers what the
// proxy does not (a batch refused call by call in an HTTP 200, a 503 with Retry-After).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { RATE_LIMITED } from '@mountain/testkit/lab/providerMessages.ts';
import { type ProviderProxy, startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { type Address, http as httpTransport, type PublicClient } from 'viem';
import { isRateLimited, isUnreachable, rateLimitRetryAfterMs, shortError } from '#api/chain/chainErrors.ts';
import { createChains } from '#api/chain/chains.ts';
import { RateLimitedError, type RateLimitOptions, withRateLimits } from '#api/chain/rateLimits.ts';
import { rpcFetch } from '#api/chain/rpcFetch.ts';
import { describeScanFailure } from '#api/eventNotifier/scanning/scanner.ts';
import { causes } from '#api/lib/causes.ts';

/** Distinct addresses, so that no two calls are the same (viem would share their answer). */
const address = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}` as Address;

const rateLimitedError = (error: unknown) => [...causes(error)].find((e) => e instanceof RateLimitedError);

describe('chain clients and providers’ rate limits', () => {
  let anvil: AnvilHandle;
  const proxies: ProviderProxy[] = [];
  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await anvil?.stop();
  });

  /** A provider of its own for each test: the clients' waits are shared per endpoint. */
  async function provider(rateLimit: NonNullable<Parameters<typeof startProviderProxy>[1]>['rateLimit']) {
    const proxy = await startProviderProxy(anvil.url, { rateLimit });
    proxies.push(proxy);
    return { proxy, client: createChains({ 1337: proxy.url }).client(1337) };
  }

  // The proxy's Retry-After is whole seconds, so each time the limit is reached costs a second: 40 calls at twice the
  // burst keep each test to a few seconds.
  for (const style of ['alchemy', 'infura'] as const) {
    it(`answers a burst of 40 calls past a ${style} rate limit, refused a bounded number of times`, async (t) => {
      const { proxy, client } = await provider({ requestsPerSecond: 20, burst: 20, style });
      // One tick: viem sends the 40 calls as one batch, more than the provider takes at once.
      const balances = await Promise.all(
        Array.from({ length: 40 }, (_, i) => client.getBalance({ address: address(i) })),
      );
      assert.deepEqual(balances, Array(40).fill(0n));
      const refusals = proxy.stats.refusals.rateLimited ?? 0;
      assert.ok(refusals > 0, 'the limit was hit');
      // The batch once (40 calls), then its calls one at a time: about one refused each time the limit is reached.
      t.diagnostic(`${refusals} calls refused`);
      assert.ok(refusals <= 50, `${refusals} calls refused`);
    });
  }

  it('spaces separate requests to a limited endpoint out instead of each retrying on its own', async (t) => {
    const { proxy, client } = await provider({ requestsPerSecond: 20, burst: 20, style: 'alchemy' });
    const calls: Promise<bigint>[] = [];
    for (let i = 0; i < 40; i++) {
      calls.push(client.getBalance({ address: address(i) }));
      await new Promise((resolve) => setImmediate(resolve)); // each call its own HTTP request
    }
    assert.deepEqual(await Promise.all(calls), Array(40).fill(0n));
    const refusals = proxy.stats.refusals.rateLimited ?? 0;
    // Those in flight when the limit was reached, then a few as the waiting ones are let go again (2 to 30 seen).
    t.diagnostic(`${refusals} calls refused`);
    assert.ok(refusals > 0 && refusals <= 60, `${refusals} calls refused`);
  });

  it('fails at once with RateLimitedError when the wait asked for is past the budget, and holds the endpoint', async () => {
    // One call per 100 s: the second is refused with Retry-After 100, more than the 30 s a request may wait.
    const { proxy, client } = await provider({ requestsPerSecond: 0.01, burst: 1, style: 'infura' });
    await client.getBalance({ address: address(0) });
    const started = Date.now();
    const error = await client.getBalance({ address: address(1) }).catch((e: unknown) => e);
    assert.ok(Date.now() - started < 2_000, 'no wait');
    assert.ok(isRateLimited(error), String(error));
    assert.ok(isUnreachable(error), 'transient: retried later');
    const cause = rateLimitedError(error) as RateLimitedError;
    assert.ok(cause.retryAfterMs !== undefined && cause.retryAfterMs > 90_000, String(cause.retryAfterMs));
    assert.equal(rateLimitRetryAfterMs(error), cause.retryAfterMs);
    assert.equal(cause.origin, new URL(proxy.url).origin);
    assert.match(cause.message, /asks to wait 100 s/);
    // What a transaction's error message would say: no endpoint in it.
    assert.match(shortError(error), /^HTTP request failed\.: The RPC endpoint is rate limiting this platform/);
    assert.doesNotMatch(shortError(error), /127\.0\.0\.1/);
    assert.equal(proxy.stats.refusals.rateLimited, 1);
    assert.match(
      describeScanFailure(error, 1337),
      /^The RPC of network 1337 is rate limiting the platform \(it asks to wait 1\d\d s\)/,
    );
    // Another request to that endpoint is not sent while it waits: it fails the same way, and the proxy saw nothing.
    const again = await client.getBalance({ address: address(2) }).catch((e: unknown) => e);
    assert.ok(isRateLimited(again));
    assert.equal(proxy.stats.refusals.rateLimited, 1);
  });

  it('stops waiting when the caller’s signal aborts, and holds the endpoint’s other requests meanwhile', async () => {
    // One call per 5 s: the second waits 5 s (within the budget) unless aborted.
    const { proxy, client } = await provider({ requestsPerSecond: 0.2, burst: 1, style: 'alchemy' });
    await client.getBalance({ address: address(0) });
    const controller = new AbortController();
    const started = Date.now();
    const waiting = client.request(
      { method: 'eth_getBalance', params: [address(1), 'latest'] },
      { signal: controller.signal },
    );
    while (!proxy.stats.refusals.rateLimited) await new Promise((resolve) => setTimeout(resolve, 10));
    const other = new AbortController();
    const held = client.request({ method: 'eth_getBalance', params: [address(2), 'latest'] }, { signal: other.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(proxy.stats.refusals.rateLimited, 1, 'the held request was not sent');
    controller.abort();
    await assert.rejects(waiting, (e: Error) => e.name === 'AbortError');
    assert.ok(Date.now() - started < 2_000);
    other.abort(new Error('test over'));
    await assert.rejects(held, /test over/);
    assert.equal(proxy.stats.refusals.rateLimited, 1);
    assert.equal(proxy.stats.served.eth_getBalance, 1);
  });
});

describe('withRateLimits against answers the proxy does not give', () => {
  type Handler = (body: unknown, res: http.ServerResponse, index: number) => void;
  let server: http.Server;
  let url: string;
  let handler: Handler;
  const received: unknown[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c) => {
        text += c;
      });
      req.on('end', () => {
        const body = JSON.parse(text) as unknown;
        received.push(body);
        handler(body, res, received.length - 1);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  let path = 0;
  /** A client of a fresh endpoint (its own path) answered by `respond`; calls of one tick in one batch if `batch`. */
  function serve(respond: Handler, options: RateLimitOptions & { batch?: boolean } = {}): PublicClient {
    handler = respond;
    received.length = 0;
    const { batch, ...limits } = options;
    const fetchFn = withRateLimits(rpcFetch, { initialDelayMs: 20, maxDelayMs: 100, ...limits });
    const endpoint = `${url}/${++path}`;
    return readClient(endpoint, {
      transport: httpTransport(endpoint, {
        retryCount: 0,
        ...(batch ? { batch: { batchSize: 64, wait: 0 } } : {}),
        fetchFn,
      }),
    });
  }
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  type Call = { id: number; params: [Address] };
  const balanceOf = (call: Call) => ({
    jsonrpc: '2.0',
    id: call.id,
    result: `0x${BigInt(call.params[0]).toString(16)}`,
  });

  it('sends again only the calls of a batch refused one by one in an HTTP 200, and merges the answers', async () => {
    // QuickNode, and Alchemy in batches: the calls past the limit get code 429 (Alchemy's without their id).
    const client = serve(
      (body, res, index) => {
        const calls = body as Call[];
        json(
          res,
          200,
          calls.map((call, i) =>
            index === 0 && i % 2 === 1 ? { jsonrpc: '2.0', error: RATE_LIMITED.alchemy().error } : balanceOf(call),
          ),
        );
      },
      { batch: true },
    );
    const balances = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => client.getBalance({ address: address(i) })));
    assert.deepEqual(balances, [1n, 2n, 3n, 4n, 5n, 6n]);
    assert.equal(received.length, 2);
    assert.deepEqual(
      (received[1] as Call[]).map((c) => c.params[0]),
      [address(1), address(3), address(5)],
    );
  });

  it('sends a batch refused whole with HTTP 429 again one call at a time, in order', async () => {
    const client = serve(
      (body, res, index) => {
        if (index === 0) return json(res, 429, { jsonrpc: '2.0', id: null, error: RATE_LIMITED.alchemy().error });
        if (Array.isArray(body)) return json(res, 500, 'a batch again');
        json(res, 200, balanceOf(body as Call));
      },
      { batch: true },
    );
    const balances = await Promise.all([0, 1, 2, 3].map((i) => client.getBalance({ address: address(i) })));
    assert.deepEqual(balances, [1n, 2n, 3n, 4n]);
    assert.deepEqual(
      received.slice(1).map((c) => (c as Call).params[0]),
      [0, 1, 2, 3].map(address),
    );
  });

  it('waits for an HTTP-date Retry-After and sends a single call refused in an HTTP 200 again', async () => {
    const client = serve((body, res, index) => {
      if (index > 0) return json(res, 200, balanceOf(body as Call));
      const date = new Date(Date.now() + 1_500).toUTCString(); // whole seconds: 0.5 to 1.5 s from now
      json(
        res,
        200,
        { jsonrpc: '2.0', id: (body as Call).id, error: RATE_LIMITED.alchemy().error },
        { 'retry-after': date },
      );
    });
    const started = Date.now();
    assert.equal(await client.getBalance({ address: address(6) }), 7n);
    assert.ok(Date.now() - started >= 400, 'waited for the date');
    assert.equal(received.length, 2);
  });

  it('sends again after a 503 with Retry-After, but not after a 503 without', async () => {
    let client = serve((body, res, index) =>
      index === 0 ? res.writeHead(503, { 'retry-after': '0' }).end('busy') : json(res, 200, balanceOf(body as Call)),
    );
    assert.equal(await client.getBalance({ address: address(0) }), 1n);
    assert.equal(received.length, 2);
    client = serve((_, res) => res.writeHead(503).end('down'));
    const error = await client.getBalance({ address: address(0) }).catch((e: unknown) => e);
    assert.ok(isUnreachable(error) && !isRateLimited(error), String(error));
    assert.equal(received.length, 1);
  });

  it('gives up with RateLimitedError after its retries', async () => {
    const client = serve(
      (body, res) => json(res, 429, { jsonrpc: '2.0', id: (body as Call).id, error: RATE_LIMITED.alchemy().error }),
      { maxRetries: 2 },
    );
    const error = await client.getBalance({ address: address(0) }).catch((e: unknown) => e);
    assert.ok(isRateLimited(error) && isUnreachable(error), String(error));
    assert.match(String((rateLimitedError(error) as Error).message), /refused 3 times/);
    assert.equal(received.length, 3);
  });

  it('leaves other refusals alone: Infura’s -32005 for too many logs is not a rate limit', async () => {
    const client = serve((body, res) =>
      json(res, 200, {
        jsonrpc: '2.0',
        id: (body as Call).id,
        error: {
          code: -32005,
          message: 'query returned more than 10000 results. Try with this block range [0x1, 0x2].',
        },
      }),
    );
    const error = await client.getBalance({ address: address(0) }).catch((e: unknown) => e);
    assert.ok(!isRateLimited(error) && !isUnreachable(error), String(error));
    assert.equal(received.length, 1);
  });

  it('times each attempt out on its own, as viem would', async () => {
    const client = serve(() => {}, { attemptTimeoutMs: 200 }); // never answers
    const started = Date.now();
    const error = await client.getBalance({ address: address(0) }).catch((e: unknown) => e);
    assert.ok(Date.now() - started < 2_000);
    assert.ok(
      [...causes(error)].some((e) => e.name === 'TimeoutError'),
      String(error),
    );
    assert.ok(isUnreachable(error) && !isRateLimited(error));
  });
});
