// 429 from the real API server's rate limiter: RateLimitError with the server's Retry-After, and retries that
// wait for it.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MountainClient, MountainError, RateLimitError } from '@mountain/public-api-client';
import { createHarness, type Harness } from '#api-testing/harness.ts';

describe('rate limits of the real server', () => {
  let h: Harness;
  let baseUrl: string;

  before(async () => {
    // One request at once per key, one more each second.
    h = await createHarness({ rateLimit: { perMinute: 60, burst: 1, authFailuresPerMinute: 0 } });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/public-api/v3`;
  });
  after(() => h.close());

  it('429 without retries left: RateLimitError with retryAfter from the Retry-After header', async () => {
    const { apiKey } = await h.project('No retries');
    const client = new MountainClient({ apiKey, baseUrl, maxRetries: 0 });
    await client.getProjectDetail();
    await assert.rejects(client.getProjectDetail(), (error) => {
      assert.ok(error instanceof RateLimitError);
      assert.ok(error instanceof MountainError);
      assert.equal(error.name, 'RateLimitError');
      assert.equal(error.status, 429);
      assert.equal(error.code, 'RATE_LIMITED');
      assert.equal(error.message, 'Too many requests: retry after 1 s');
      assert.equal(error.retryAfter, 1);
      assert.match(error.requestId ?? '', /\S/);
      return true;
    });
  });

  it('retries a 429 after Retry-After, not after its own much shorter backoff', async () => {
    const { apiKey } = await h.project('Retries');
    const client = new MountainClient({ apiKey, baseUrl, maxRetries: 2, initialRetryDelayMs: 1, maxRetryDelayMs: 5 });
    await client.getProjectDetail();
    const started = Date.now();
    const detail = await client.getProjectDetail();
    const waited = Date.now() - started;
    assert.equal(detail.data.project.projectName, 'Retries');
    assert.ok(waited >= 950, `answered after ${waited} ms, before the server's Retry-After of 1 s`);
  });
});
