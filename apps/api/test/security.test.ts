// Security headers on every answer, the CORS policy for browsers, and body size and encoding limits (their
// configuration is in securityConfig.test.ts; rate limits are in securityRateLimit.test.ts).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#api/app.ts';
import { createDb } from '#api/db/db.ts';
import { API_PREFIX } from '#api/http/appDeps.ts';
import { CORS_ALLOW_HEADERS } from '#api/http/cors.ts';
import { SECURITY_HEADERS } from '#api/http/securityHeaders.ts';
import { routes } from '#api/routes/index.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

const ORIGIN = 'https://app.example.com';
const LIMIT = 64 * 1024;
const IMPORT = `${API_PREFIX}/contract/import-contract`;
const DETAIL = `${API_PREFIX}/project/get-project-detail`;
const contract = (address: string) => ({
  networkId: 1337,
  address,
  formattedAbi: ['function mint(address to, uint256 amount)'],
});

/** A JSON body padded with trailing spaces to exactly `size` bytes. */
function paddedBody(value: unknown, size: number): string {
  const json = JSON.stringify(value);
  assert.ok(json.length <= size);
  return json + ' '.repeat(size - json.length);
}

const listen = async (app: FastifyInstance) => {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
};

function assertSecurityHeaders(what: string, headers: Headers): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(headers.get(name), value, `${what}: ${name}`);
  }
  assert.equal(headers.get('x-powered-by'), null, `${what}: x-powered-by`);
  assert.equal(headers.get('server'), null, `${what}: server`);
}

describe('security headers on every answer', () => {
  let h: Harness;
  let base: string;
  let key: string;
  const extra: FastifyInstance[] = [];

  before(async () => {
    // Chain 1337 at a closed port: /readyz still answers 200 (degraded), naming the chain.
    h = await createHarness({ rpcUrls: { 1337: 'http://127.0.0.1:9' } });
    base = await listen(h.app);
    ({ apiKey: key } = await h.project('Headers'));
  });
  after(async () => {
    for (const app of extra) await app.close();
    await h.close();
  });

  it('on 2xx, 4xx, 404, 413, 415 and 503 answers of the API and the health routes', async () => {
    const json = { 'content-type': 'application/json', 'x-api-key': key };
    const cases: [string, number, string, RequestInit][] = [
      ['get-project-detail', 200, DETAIL, { headers: apiKey(key) }],
      [
        'import-contract',
        201,
        IMPORT,
        { method: 'POST', headers: json, body: JSON.stringify(contract('0x5FbDB2315678afecb367f032d93F642f64180aa3')) },
      ],
      ['no credentials', 401, DETAIL, {}],
      ['validation', 400, IMPORT, { method: 'POST', headers: json, body: '{"networkId": 5}' }],
      ['invalid JSON', 400, IMPORT, { method: 'POST', headers: json, body: '{' }],
      ['unknown route', 404, `${API_PREFIX}/nothing-here`, {}],
      ['unknown route, no prefix', 404, '/', {}],
      ['too large', 413, IMPORT, { method: 'POST', headers: json, body: paddedBody({}, LIMIT + 1) }],
      ['text body', 415, IMPORT, { method: 'POST', headers: { ...json, 'content-type': 'text/plain' }, body: 'x' }],
      ['liveness', 200, '/healthz', {}],
      ['readiness, chain unreachable', 200, '/readyz', {}],
      [
        'preflight',
        204,
        DETAIL,
        { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } },
      ],
    ];
    for (const [what, status, path, init] of cases) {
      const res = await fetch(`${base}${path}`, init);
      assert.equal(res.status, status, what);
      assertSecurityHeaders(what, res.headers);
      if (status !== 204) assert.match(res.headers.get('content-type') ?? '', /^application\/json/, what);
    }
  });

  it('on 429 and on 503 when the database is unreachable', async () => {
    const limited = buildApp({ ...h.deps, rateLimit: { perMinute: 60, burst: 1, authFailuresPerMinute: 0 } });
    const noDatabase = buildApp({ ...h.deps, db: createDb('postgres://mountain@127.0.0.1:9/none') });
    extra.push(limited, noDatabase);
    const limitedBase = await listen(limited);
    await fetch(`${limitedBase}${DETAIL}`, { headers: apiKey(key) });
    const tooMany = await fetch(`${limitedBase}${DETAIL}`, { headers: apiKey(key) });
    assert.equal(tooMany.status, 429);
    assertSecurityHeaders('429', tooMany.headers);

    const noDatabaseBase = await listen(noDatabase);
    const down = await fetch(`${noDatabaseBase}${DETAIL}`, { headers: apiKey(key) });
    assert.equal(down.status, 503);
    assert.equal(((await down.json()) as { code: string }).code, 'SERVICE_UNAVAILABLE');
    assertSecurityHeaders('503', down.headers);
    const notReady = await fetch(`${noDatabaseBase}/readyz`);
    assert.equal(notReady.status, 503);
    assert.equal(((await notReady.json()) as { status: string }).status, 'not ready');
  });

  it('/readyz with a chain down: 200, degraded, the chain named', async () => {
    const res = await fetch(`${base}/readyz`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    assert.equal(body.status, 'degraded');
    assert.equal(body.checks.database, 'ok');
    assert.match(body.checks['chain:1337'] ?? '', /^unreachable: /);
  });
});

describe('CORS', () => {
  let h: Harness;
  let key: string;

  before(async () => {
    h = await createHarness();
    ({ apiKey: key } = await h.project('Browser app'));
  });
  after(() => h.close());

  const preflight = (app: FastifyInstance, url: string, method: string, origin = ORIGIN) =>
    app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'x-api-key, content-type, x-project-id',
      },
    });

  it('answers the preflight of every operation 204 without credentials', async () => {
    const allowed = CORS_ALLOW_HEADERS.toLowerCase().split(', ');
    assert.deepEqual(allowed, [
      'x-api-key',
      'authorization',
      'content-type',
      'x-project-id',
      'idempotency-key',
      'x-request-id',
    ]);
    for (const route of routes) {
      const res = await preflight(h.app, `${API_PREFIX}${route.url}`, route.method);
      assert.equal(res.statusCode, 204, route.operationId);
      assert.equal(res.body, '');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.ok(String(res.headers['access-control-allow-methods']).split(', ').includes(route.method));
      assert.deepEqual(String(res.headers['access-control-allow-headers']).toLowerCase().split(', '), allowed);
      assert.equal(res.headers['access-control-max-age'], '7200');
      // Credentials are headers, never cookies: browsers must not send cookies along.
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
    }
    for (const url of ['/healthz', '/readyz']) assert.equal((await preflight(h.app, url, 'GET')).statusCode, 204);
  });

  it('lets a browser read answers, errors included, and the request id and rate limit headers', async () => {
    for (const [what, headers, status] of [
      ['success', { origin: ORIGIN, ...apiKey(key) }, 200],
      ['error', { origin: ORIGIN }, 401],
    ] as const) {
      const res = await h.app.inject({ method: 'GET', url: DETAIL, headers });
      assert.equal(res.statusCode, status, what);
      assert.equal(res.headers['access-control-allow-origin'], '*', what);
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(', ');
      for (const name of ['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) {
        assert.ok(exposed.includes(name), `${what}: ${name} not exposed`);
      }
    }
  });

  it('restricted to CORS_ALLOWED_ORIGINS: other origins get no CORS headers', async () => {
    const app = buildApp({ ...h.deps, cors: { allowedOrigins: [ORIGIN, 'http://localhost:3000'] } });
    try {
      const ok = await preflight(app, DETAIL, 'GET');
      assert.equal(ok.statusCode, 204);
      assert.equal(ok.headers['access-control-allow-origin'], ORIGIN);
      assert.equal(ok.headers.vary, 'Origin');
      assert.equal(ok.headers['access-control-allow-methods'], 'GET, POST');

      const refused = await preflight(app, DETAIL, 'GET', 'https://evil.example');
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
      assert.equal(refused.headers['access-control-allow-methods'], undefined);
      assert.equal(refused.headers['access-control-allow-headers'], undefined);

      const actual = await app.inject({
        method: 'GET',
        url: DETAIL,
        headers: { origin: 'https://evil.example', ...apiKey(key) },
      });
      assert.equal(actual.headers['access-control-allow-origin'], undefined);
      assert.equal(actual.headers['access-control-expose-headers'], undefined);
      assert.equal(actual.headers.vary, 'Origin');

      const allowed = await app.inject({
        method: 'GET',
        url: DETAIL,
        headers: { origin: 'http://localhost:3000', ...apiKey(key) },
      });
      assert.equal(allowed.statusCode, 200);
      assert.equal(allowed.headers['access-control-allow-origin'], 'http://localhost:3000');
    } finally {
      await app.close();
    }
  });
});

describe('request body limits', () => {
  let h: Harness;
  let base: string;
  let key: string;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    base = await listen(h.app);
    const created = await h.project('Bodies');
    key = created.apiKey;
    projectId = created.project.id;
  });
  after(() => h.close());

  const contracts = async () =>
    Number((await h.db.query('SELECT count(*) AS n FROM contracts WHERE project_id = $1', [projectId])).rows[0]?.n);

  /** Sends a body in chunks with no Content-Length (chunked transfer encoding) over real HTTP. */
  function chunked(
    body: string | Buffer,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: { code: string } }> {
    const bytes = Buffer.from(body);
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${base}${IMPORT}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      // The server may answer and close before the whole body is written.
      req.on('error', (error) => (req.writableEnded ? undefined : reject(error)));
      for (let i = 0; i < bytes.length; i += 8192) req.write(bytes.subarray(i, i + 8192));
      req.end();
    });
  }

  it('accepts a body of exactly the limit and refuses one byte more with 413, writing nothing', async () => {
    const atLimit = await h.call('import-contract', {
      headers: { ...apiKey(key), 'content-type': 'application/json' },
      rawBody: paddedBody(contract('0x00000000000000000000000000000000000000A1'), LIMIT),
    });
    assert.equal(atLimit.status, 201);
    assert.equal(await contracts(), 1);

    const over = await h.call('import-contract', {
      headers: { ...apiKey(key), 'content-type': 'application/json' },
      rawBody: paddedBody(contract('0x00000000000000000000000000000000000000A2'), LIMIT + 1),
    });
    assert.equal(over.status, 413);
    assert.equal(over.body.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(over.body.message, `The request body is larger than ${LIMIT} bytes`);
    assert.equal(await contracts(), 1);
  });

  it('counts a chunked body without Content-Length: 413 past the limit, accepted under it', async () => {
    const over = await chunked(paddedBody(contract('0x00000000000000000000000000000000000000B1'), 3 * LIMIT));
    assert.equal(over.status, 413);
    assert.equal(over.body.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(await contracts(), 1);

    const under = await chunked(paddedBody(contract('0x00000000000000000000000000000000000000B2'), LIMIT - 1));
    assert.equal(under.status, 201);
    assert.equal(await contracts(), 2);
  });

  it('refuses compressed bodies with 415 UNSUPPORTED_CONTENT_ENCODING and writes nothing', async () => {
    const body = JSON.stringify(contract('0x00000000000000000000000000000000000000C1'));
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['br', Buffer.from(body)],
    ] as const) {
      const res = await h.call('import-contract', {
        headers: { ...apiKey(key), 'content-type': 'application/json', 'content-encoding': encoding },
        rawBody: bytes,
      });
      assert.equal(res.status, 415, encoding);
      assert.equal(res.body.code, 'UNSUPPORTED_CONTENT_ENCODING');
      assert.equal(res.body.message, `Content-Encoding ${encoding} is not supported: send the body uncompressed`);
    }
    // A gzip bomb is refused before a byte of it is inflated.
    const bomb = gzipSync(Buffer.alloc(10 * LIMIT, 0x20));
    assert.ok(bomb.length < LIMIT);
    const res = await chunked(bomb, { 'content-encoding': 'gzip' });
    assert.equal(res.status, 415);
    assert.equal(await contracts(), 2);

    const identity = await h.call('import-contract', {
      headers: { ...apiKey(key), 'content-type': 'application/json', 'content-encoding': 'identity' },
      rawBody: body,
    });
    assert.equal(identity.status, 201);
    assert.equal(await contracts(), 3);
  });

  it('checks credentials before the body: an anonymous oversized or compressed body gets 401', async () => {
    for (const headers of [{}, { 'content-encoding': 'gzip' }]) {
      const res = await h.app.inject({
        method: 'POST',
        url: IMPORT,
        headers: { 'content-type': 'application/json', ...headers },
        payload: paddedBody({}, LIMIT + 1),
      });
      assert.equal(res.statusCode, 401);
    }
  });
});
