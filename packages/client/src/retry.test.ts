// Retries against a loopback server that fails on purpose: which failures are retried, how many times, how long
// the client waits (never less than Retry-After; no upper timing bounds, to stay reliable on a busy machine).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  backoffDelay,
  ConnectionError,
  MountainClient,
  parseRetryAfter,
  RateLimitError,
  ServerError,
} from './index.ts';
import { apiError, json, type LoopbackServer, type Responder, startLoopbackServer } from './testing.ts';

const servers: LoopbackServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function serve(respond: Responder) {
  const server = await startLoopbackServer(respond);
  servers.push(server);
  const client = new MountainClient({ apiKey: 'mtn_test_key', baseUrl: server.baseUrl, initialRetryDelayMs: 5 });
  return { server, client };
}

/** Fails the first `failures` requests with `fail`, then answers 200 `{ contracts: [] }`. */
function failThenSucceed(failures: number, fail: Responder): Responder {
  return (request, response, index) =>
    index < failures ? fail(request, response, index) : json(response, 200, { contracts: [] });
}

// setTimeout may fire up to a millisecond early by rounding; nothing else makes a wait shorter than asked.
const TIMER_SLACK_MS = 2;

describe('retries', () => {
  it('retries 500 until success: 2 failures, 3 attempts', async () => {
    const { server, client } = await serve(
      failThenSucceed(2, (_, res) => json(res, 500, apiError(500, 'INTERNAL_ERROR'))),
    );
    assert.deepEqual(await client.getContracts(), { contracts: [] });
    assert.equal(server.requests.length, 3);
  });

  it('gives up after maxRetries with the last ServerError; per-request and client overrides count', async () => {
    const { server, client } = await serve((_, res) => json(res, 503, apiError(503, 'SERVICE_UNAVAILABLE')));
    await assert.rejects(client.getContracts(), { name: 'ServerError', status: 503, code: 'SERVICE_UNAVAILABLE' });
    assert.equal(server.requests.length, 3, 'default maxRetries is 2');
    await assert.rejects(client.getContracts({ maxRetries: 0 }), ServerError);
    assert.equal(server.requests.length, 4);
    const patient = new MountainClient({ apiKey: 'k', baseUrl: server.baseUrl, maxRetries: 4, initialRetryDelayMs: 1 });
    await assert.rejects(patient.getContracts(), ServerError);
    assert.equal(server.requests.length, 9);
  });

  it('does not retry 501 or 4xx answers', async () => {
    const answers = [
      [501, 'NOT_IMPLEMENTED'],
      [400, 'VALIDATION_FAILED'],
      [404, 'NOT_FOUND'],
      [409, 'CONFLICT'],
      [413, 'PAYLOAD_TOO_LARGE'],
    ] as const;
    const { server, client } = await serve((_, res, i) =>
      json(res, answers[i]?.[0] ?? 500, apiError(answers[i]?.[0] ?? 500, answers[i]?.[1] ?? '')),
    );
    for (const [status, code] of answers) {
      const before = server.requests.length;
      await assert.rejects(client.getContracts(), { status, code });
      assert.equal(server.requests.length, before + 1, `${status} is answered after one attempt`);
    }
  });

  it('retries a reset connection, then succeeds', async () => {
    const { server, client } = await serve(failThenSucceed(2, (_, res) => res.socket?.destroy()));
    assert.deepEqual(await client.getContracts(), { contracts: [] });
    assert.equal(server.requests.length, 3);
  });

  it('reset on every attempt: ConnectionError after 3 attempts', async () => {
    const { server, client } = await serve((_, res) => res.socket?.destroy());
    await assert.rejects(
      client.getContracts(),
      (error) => error instanceof ConnectionError && error.code === 'CONNECTION_ERROR',
    );
    assert.equal(server.requests.length, 3);
  });

  it('429 with Retry-After in seconds: waits at least that long before the retry', async () => {
    const { server, client } = await serve(
      failThenSucceed(1, (_, res) => json(res, 429, apiError(429, 'RATE_LIMITED'), { 'retry-after': '1' })),
    );
    assert.deepEqual(await client.getContracts(), { contracts: [] });
    const [first, second] = server.requests;
    assert.ok(first && second);
    assert.ok(second.at - first.at >= 1000 - TIMER_SLACK_MS, `waited ${second.at - first.at} ms`);
  });

  it('503 with Retry-After as an HTTP date: waits until that date', async () => {
    let waitAsked = 0;
    const { server, client } = await serve(
      failThenSucceed(1, (_, res) => {
        const date = new Date(Date.now() + 2000).toUTCString(); // whole seconds: 1 to 2 s from now
        waitAsked = Date.parse(date) - Date.now();
        json(res, 503, apiError(503, 'SERVICE_UNAVAILABLE'), { 'retry-after': date });
      }),
    );
    await client.getContracts();
    const [first, second] = server.requests;
    assert.ok(first && second && waitAsked > 0);
    assert.ok(second.at - first.at >= waitAsked - TIMER_SLACK_MS, `waited ${second.at - first.at} of ${waitAsked} ms`);
  });

  it('429 after the retries: RateLimitError with retryAfter in seconds; Retry-After over 60 s is not waited for', async () => {
    const { server, client } = await serve((_, res, i) =>
      json(res, 429, apiError(429, 'RATE_LIMITED'), { 'retry-after': i === 0 ? '7' : '3600' }),
    );
    await assert.rejects(client.getContracts({ maxRetries: 0 }), (error) => {
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.name, 'RateLimitError');
      assert.equal(error.retryAfter, 7);
      return true;
    });
    await assert.rejects(client.getContracts(), { name: 'RateLimitError', retryAfter: 3600 });
    assert.equal(server.requests.length, 2, 'the hour-long Retry-After ended the call at once');
  });

  it('executeTransaction keeps one generated idempotency key on every attempt', async () => {
    const transaction = { id: 't1', status: 'created' };
    const { server, client } = await serve((_, res, i) =>
      i < 2 ? json(res, 500, apiError(500, 'INTERNAL_ERROR')) : json(res, 201, { transaction }),
    );
    const answer = await client.executeTransaction({ contractActivatedFunctionId: 12, functionArgs: ['1'] });
    assert.deepEqual(answer, { transaction });
    const bodies = server.requests.map((r) => JSON.parse(r.body));
    assert.equal(bodies.length, 3);
    const [key] = bodies.map((b) => b.idempotencyKey);
    assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const body of bodies)
      assert.deepEqual(body, { contractActivatedFunctionId: 12, functionArgs: ['1'], idempotencyKey: key });
  });

  it('executeTransaction uses the caller’s key (body first, then options), and a new key per call', async () => {
    const { server, client } = await serve((_, res) => json(res, 201, { transaction: {} }));
    const body = { contractActivatedFunctionId: 1, functionArgs: [] };
    await client.executeTransaction({ ...body, idempotencyKey: 'order-1' }, { idempotencyKey: 'ignored' });
    await client.executeTransaction(body, { idempotencyKey: 'order-2' });
    await client.executeTransaction(body);
    await client.executeTransaction(body);
    const keys = server.requests.map((r) => JSON.parse(r.body).idempotencyKey);
    assert.deepEqual(keys.slice(0, 2), ['order-1', 'order-2']);
    assert.notEqual(keys[2], keys[3]);
  });
});

describe('backoff and Retry-After parsing', () => {
  it('doubles from the initial delay, capped, with jitter between half and all of the step', () => {
    // [retry, random(), expected delay] with an initial delay of 500 ms and a cap of 8000 ms.
    for (const [retry, random, expected] of [
      [0, 0, 250],
      [0, 1, 500],
      [3, 1, 4000],
      [10, 1, 8000],
      [10, 0.5, 6000],
    ] as const) {
      assert.equal(
        backoffDelay(retry, 500, 8000, () => random),
        expected,
        `retry ${retry}, random ${random}`,
      );
    }
  });

  it('reads delta seconds and HTTP dates, and ignores what it does not understand', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    assert.equal(parseRetryAfter('5', now), 5000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 10:00:03 GMT', now), 3000);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now), 0, 'a past date means now');
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-1', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });
});
