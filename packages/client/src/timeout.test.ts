// Per-attempt timeouts and the caller's AbortSignal, against a loopback server that never answers.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, describe, it } from 'node:test';
import { ConnectionError, MountainClient, TimeoutError } from './index.ts';
import { apiError, json, type LoopbackServer, type Responder, startLoopbackServer } from './testing.ts';

const servers: LoopbackServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function serve(respond: Responder) {
  const server = await startLoopbackServer(respond);
  servers.push(server);
  return server;
}

/** Keeps the request open: the client must give up by itself. */
const silent: Responder = (_request, _response: ServerResponse) => {};

describe('timeouts', () => {
  it('a silent server: TimeoutError after the attempt times out, retried like a lost connection', async () => {
    const server = await serve(silent);
    let attempts = 0;
    const client = new MountainClient({
      apiKey: 'k',
      baseUrl: server.baseUrl,
      timeout: 50,
      initialRetryDelayMs: 1,
      // Counted here rather than on the server: an attempt may time out before its request is even written
      // (Node's first fetch loads its HTTP stack).
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
    await assert.rejects(client.getContracts(), (error) => {
      assert.ok(error instanceof TimeoutError);
      assert.ok(error instanceof ConnectionError, 'a timeout is a kind of connection error');
      assert.equal(error.name, 'TimeoutError');
      assert.equal(error.code, 'TIMEOUT');
      assert.equal(error.status, undefined);
      assert.match(error.message, /GET \/public-api\/v3\/contract failed: No answer within 50 ms/);
      return true;
    });
    assert.equal(attempts, 3);
  });

  it('the per-request timeout overrides the client’s', async () => {
    const server = await serve((_, res, i) => (i === 0 ? undefined : json(res, 200, { contracts: [] })));
    const client = new MountainClient({
      apiKey: 'k',
      baseUrl: server.baseUrl,
      timeout: 60_000,
      initialRetryDelayMs: 1,
    });
    assert.deepEqual(await client.getContracts({ timeout: 50 }), { contracts: [] });
    assert.ok(server.requests.length >= 1, 'the first attempt timed out, a retry was answered');
  });
});

describe('AbortSignal', () => {
  it('aborting during a request rejects with the signal’s reason, without retrying', async () => {
    const controller = new AbortController();
    const server = await serve(() => controller.abort(new Error('user left')));
    const client = new MountainClient({ apiKey: 'k', baseUrl: server.baseUrl });
    await assert.rejects(client.getContracts({ signal: controller.signal }), { message: 'user left' });
    assert.equal(server.requests.length, 1);
  });

  it('aborting during the backoff wait rejects at once, without waiting it out', async () => {
    const controller = new AbortController();
    const server = await serve((_, res) => {
      json(res, 500, apiError(500, 'INTERNAL_ERROR'));
      setTimeout(() => controller.abort(), 20);
    });
    // A one-hour backoff: the test only finishes because the abort ends the wait.
    const client = new MountainClient({ apiKey: 'k', baseUrl: server.baseUrl, initialRetryDelayMs: 3_600_000 });
    await assert.rejects(client.getContracts({ signal: controller.signal }), { name: 'AbortError' });
    assert.equal(server.requests.length, 1);
  });

  it('an already aborted signal sends nothing', async () => {
    const server = await serve(silent);
    const client = new MountainClient({ apiKey: 'k', baseUrl: server.baseUrl });
    await assert.rejects(client.getContracts({ signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(server.requests.length, 0);
  });
});
