// How the API serves the developer console's files: compressed, hashed assets immutable, the page never cached,
// every console path answered with the page, a strict Content-Security-Policy on all of it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CONSOLE_CSP } from '#api/http/consoleStatic.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';

describe('the console, served at /console/', () => {
  let h: Harness;
  let dir: string;
  const page = `<!doctype html><html><head><title>Mountain console</title></head><body>${'<div></div>'.repeat(100)}</body></html>`;
  const script = `console.log(${JSON.stringify('x'.repeat(2000))});`;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mountain-console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), page);
    writeFileSync(path.join(dir, 'assets/index-AbC123.js'), script);
    h = await createHarness({ consoleDir: dir });
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers });

  it('answers the page, not cached, with the strict policy, for the root and any route of the console', async () => {
    for (const url of ['/console/', '/console/transactions/abc', '/console/sign-in']) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, page);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
      assert.equal(res.headers['x-frame-options'], 'DENY');
    }
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|\*/);
    // Trusted Types, with no policy at all: the console needs none (apps/console/test/sessionTokens.test.ts).
    assert.match(CONSOLE_CSP, /; require-trusted-types-for 'script'; trusted-types 'none'(;|$)/);
    const bare = await get('/console');
    assert.equal(bare.statusCode, 308);
    assert.equal(bare.headers.location, '/console/');
  });

  it('sends hashed assets immutable, brotli or gzip as the browser accepts', async () => {
    const br = await get('/console/assets/index-AbC123.js', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.statusCode, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), script);
    const gz = await get('/console/assets/index-AbC123.js', { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.rawPayload).toString(), script);
    const plain = await get('/console/assets/index-AbC123.js');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, script);
    assert.equal(plain.headers.vary, 'accept-encoding');
  });

  it('answers 404 for an asset it does not have, instead of the page', async () => {
    assert.equal((await get('/console/assets/index-Old999.js')).statusCode, 404);
    assert.equal((await get('/console/robots.txt')).statusCode, 404);
  });

  it('is not served when the console was not built', async () => {
    const bare = await createHarness({ consoleDir: path.join(dir, 'missing') });
    try {
      assert.equal((await bare.app.inject({ method: 'GET', url: '/console/' })).statusCode, 404);
    } finally {
      await bare.close();
    }
  });
});
