// The published form: `tsc -p tsconfig.build.json` emits ESM with a .d.ts beside each module, leaves tests and
// test helpers out, and the output runs as is in plain Node (no TypeScript loader) and in a browser (Chromium).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launchBrowser } from '@mountain/testkit/browser.ts';
import * as source from './index.ts';
import { apiError, json, startLoopbackServer } from './testing.ts';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = mkdtempSync(path.join(tmpdir(), 'mountain-client-build-'));
before(async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: packageDir });
});
after(() => rmSync(outDir, { recursive: true, force: true }));

test('the build emits ESM and declarations, and no tests', () => {
  const files = readdirSync(outDir, { recursive: true, encoding: 'utf8' });
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    assert.ok(files.includes(file.replace(/\.js$/, '.d.ts')), `${file} has declarations`);
  }
  assert.ok(existsSync(path.join(outDir, 'generated', 'schema.d.ts')));
  assert.deepEqual(
    files.filter((f) => /\.test\.|testing/.test(f)),
    [],
    'no tests or test helpers are published',
  );
});

test('the build runs in plain Node with the same exports as the source', async () => {
  const script = `const m = await import(${JSON.stringify(path.join(outDir, 'index.js'))});
    const c = new m.MountainClient({ apiKey: 'k', fetch: async () => new Response('{"contracts":[]}') });
    console.log(JSON.stringify({ exports: Object.keys(m).sort(), answer: await c.getContracts() }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  assert.deepEqual(JSON.parse(stdout), { exports: Object.keys(source).sort(), answer: { contracts: [] } });
});

test('the build runs in a browser: fetch, retries with one idempotency key, error classes, timeouts', async () => {
  let executions = 0;
  const server = await startLoopbackServer((request, res) => {
    const { pathname } = new URL(request.url, 'http://x');
    if (pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>');
    } else if (pathname.startsWith('/client/')) {
      const file = path.join(outDir, pathname.slice('/client/'.length));
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
    } else if (pathname.endsWith('/execute-transaction')) {
      const { idempotencyKey } = JSON.parse(request.body);
      if (executions++ === 0) json(res, 500, apiError(500, 'INTERNAL_ERROR'));
      else json(res, 201, { transaction: { id: 't1', idempotencyKey } });
    } else if (pathname.endsWith('/contract')) {
      json(res, 404, apiError(404, 'NOT_FOUND'), { 'x-request-id': 'req-browser' });
    } // anything else: no answer
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${server.baseUrl.replace('/public-api/v3', '')}/`);
    const result = await page.evaluate(async () => {
      const m = await import(`${location.origin}/client/index.js`);
      const client = new m.MountainClient({ apiKey: 'k', baseUrl: `${location.origin}/public-api/v3` });
      const fast = { maxRetries: 1 };
      const executed = await client.executeTransaction({ contractActivatedFunctionId: 1, functionArgs: [] }, fast);
      const notFound = await client.getContracts().catch((e: Error & { requestId?: string }) => [e.name, e.requestId]);
      const timedOut = await client.getProjectDetail({ timeout: 100, maxRetries: 0 }).catch((e: Error) => e.name);
      return { key: executed.transaction.idempotencyKey, notFound, timedOut };
    });
    const keys = server.requests.filter((r) => r.url.endsWith('/execute-transaction')).map((r) => JSON.parse(r.body));
    assert.equal(keys.length, 2, 'a 500 then the retry');
    assert.ok(keys.every((k) => k.idempotencyKey === result.key));
    assert.match(result.key, /^[0-9a-f-]{36}$/);
    assert.deepEqual(result.notFound, ['NotFoundError', 'req-browser']);
    assert.equal(result.timedOut, 'TimeoutError');
    assert.equal(server.requests.find((r) => r.url.includes('/contract'))?.headers['x-api-key'], 'k');
  } finally {
    await browser.close();
    await server.close();
  }
});
