import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '#api/app.ts';
import { loggerOptions } from '#api/runtime/logger.ts';
import { createHarness, type Harness } from './helpers/harness.ts';

describe('request logs', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it('are JSON lines with the request id, and never hold a key or a token', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    const app = buildApp(h.deps, { logger: { ...(loggerOptions('info') as object), stream } });
    const { project, apiKey } = await h.project();
    const { token } = await h.member(project.id, 'reader');
    try {
      await app.inject({
        method: 'GET',
        url: '/public-api/v3/project/get-project-detail',
        headers: { 'x-api-key': apiKey, 'x-request-id': 'trace-42' },
      });
      await app.inject({
        method: 'GET',
        url: '/public-api/v3/project/get-project-detail',
        headers: { authorization: `Bearer ${token}` },
      });
      await app.inject({
        method: 'POST',
        url: '/public-api/v3/contract/import-contract',
        headers: { 'x-api-key': `${apiKey.slice(0, -1)}x`, 'content-type': 'application/json' },
        payload: '{"networkId":',
      });
    } finally {
      await app.close();
    }
    const entries = lines.map((line) => JSON.parse(line));
    assert.ok(
      entries.some((e) => e.reqId === 'trace-42' && e.res?.statusCode === 200),
      'request id is logged',
    );
    assert.ok(
      entries.every((e) => typeof e.reqId === 'string' || e.msg?.includes('Server')),
      'every request line has an id',
    );
    const all = lines.join('\n');
    for (const secret of [apiKey, apiKey.slice(21), token, token.split('.')[2] as string]) {
      assert.ok(!all.includes(secret), 'no credential in the logs');
    }
  });
});
