// The CORS policy in a real browser: a page on another origin calls the API with an API key and a JSON body
// (so Chromium sends a preflight), reads answers, errors and the exposed headers, and is stopped when the
// deployment restricts the origins.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, launchBrowser } from '@mountain/testkit/browser.ts';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { buildApp } from '#api/app.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';

interface Outcome {
  status?: number;
  body?: { code?: string };
  headers?: Record<string, string | null>;
  failed?: string;
}

/** Runs fetch() in the page, on the page's origin, against `url`. */
function browserFetch(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
) {
  return page.evaluate(
    async ({ url, init }): Promise<Outcome> => {
      try {
        const res = await fetch(url, init);
        const headers: Record<string, string | null> = {};
        for (const name of ['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'])
          headers[name] = res.headers.get(name);
        return { status: res.status, body: await res.json(), headers };
      } catch (error) {
        return { failed: String(error) };
      }
    },
    { url, init },
  );
}

describe('CORS in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let pageServer: Server;
  let pageOrigin: string;
  let key: string;
  let projectId: number;
  const apps: FastifyInstance[] = [];

  const listen = async (app: FastifyInstance) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/public-api/v3`;
  };
  const contracts = async () =>
    Number((await h.db.query('SELECT count(*) AS n FROM contracts WHERE project_id = $1', [projectId])).rows[0]?.n);
  const importContract = (address: string) => ({
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'X-Request-Id': `browser-${address.slice(-4)}` },
    body: JSON.stringify({ networkId: 1337, address, formattedAbi: ['function mint(address to, uint256 amount)'] }),
  });

  before(async () => {
    h = await createHarness();
    ({
      apiKey: key,
      project: { id: projectId },
    } = await h.project('Browser'));
    pageServer = createServer((_req, res) => res.end('<!doctype html><title>A browser app</title>'));
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(pageOrigin);
  });
  after(async () => {
    await browser?.close();
    pageServer?.close();
    for (const app of apps) await app.close();
    await h?.close();
  });

  it('lets a page on another origin write with an API key and read the answer and its headers', async () => {
    const api = await listen(h.app);
    const res = await browserFetch(
      page,
      `${api}/contract/import-contract`,
      importContract('0x00000000000000000000000000000000000000D1'),
    );
    assert.equal(res.failed, undefined);
    assert.equal(res.status, 201);
    assert.equal(res.headers?.['x-request-id'], 'browser-00D1');
    assert.equal(res.headers?.['ratelimit-limit'], '60000');
    assert.match(res.headers?.['ratelimit-remaining'] ?? '', /^\d+$/);
    assert.equal(await contracts(), 1);

    const error = await browserFetch(page, `${api}/project/get-project-detail`, {});
    assert.equal(error.status, 401);
    assert.equal(error.body?.code, 'UNAUTHENTICATED');
  });

  it('lets the page read a 429 and its Retry-After', async () => {
    const limited = buildApp({ ...h.deps, rateLimit: { perMinute: 60, burst: 1, authFailuresPerMinute: 0 } });
    apps.push(limited);
    const api = await listen(limited);
    const init = { headers: { 'X-API-Key': key } };
    assert.equal((await browserFetch(page, `${api}/project/get-project-detail`, init)).status, 200);
    const res = await browserFetch(page, `${api}/project/get-project-detail`, init);
    assert.equal(res.status, 429);
    assert.equal(res.body?.code, 'RATE_LIMITED');
    assert.equal(res.headers?.['retry-after'], '1');
    assert.equal(res.headers?.['ratelimit-remaining'], '0');
  });

  it('with CORS_ALLOWED_ORIGINS, serves a listed origin and stops the others at the preflight', async () => {
    const listed = buildApp({ ...h.deps, cors: { allowedOrigins: [pageOrigin] } });
    const other = buildApp({ ...h.deps, cors: { allowedOrigins: ['https://app.example.com'] } });
    apps.push(listed, other);

    const ok = await browserFetch(
      page,
      `${await listen(listed)}/contract/import-contract`,
      importContract('0x00000000000000000000000000000000000000D2'),
    );
    assert.equal(ok.status, 201);
    assert.equal(await contracts(), 2);

    const refused = await browserFetch(
      page,
      `${await listen(other)}/contract/import-contract`,
      importContract('0x00000000000000000000000000000000000000D3'),
    );
    assert.match(refused.failed ?? '', /TypeError: Failed to fetch/);
    // The preflight failed, so the POST itself was never sent.
    assert.equal(await contracts(), 2);
  });
});
