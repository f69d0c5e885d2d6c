// Per-credential rate limiting (429 + Retry-After, RateLimit-* headers), shared by every API process through
// PostgreSQL, and the limit on requests refused by authentication per client address.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundledEntry } from '@mountain/testkit/devBundle.js';
import { freePort } from '@mountain/testkit/ports.ts';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#api/app.ts';
import { issueApiKey } from '#api/auth/apiKeys.ts';
import { REPO_ROOT } from '#api/config/config.ts';
import { createRateLimiter } from '#api/http/rateLimit.ts';
import { setMembership } from '#api/projects/users.ts';
import { routes } from '#api/routes/index.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';
import { createResponseValidator } from '#api-testing/openapi.ts';

const DETAIL = '/public-api/v3/project/get-project-detail';
const header = (res: { headers: Record<string, unknown> }, name: string) => res.headers[name] as string | undefined;

describe('rate limiting per credential', () => {
  let h: Harness;

  before(async () => {
    // 3 requests at once, refilled at 60 a minute: one token a second.
    h = await createHarness({ rateLimit: { perMinute: 60, burst: 3, authFailuresPerMinute: 0 } });
  });
  after(() => h.close());

  it('counts down RateLimit-Remaining, then answers 429 RATE_LIMITED with Retry-After', async () => {
    const { apiKey: key } = await h.project('Limited');
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.call('get-project-detail', { headers: apiKey(key) });
      assert.equal(res.status, 200);
      assert.equal(header(res, 'ratelimit-limit'), '3');
      assert.equal(res.headers['retry-after'], undefined);
      remaining.push(header(res, 'ratelimit-remaining') as string);
      assert.ok(Number(header(res, 'ratelimit-reset')) >= 1 && Number(header(res, 'ratelimit-reset')) <= 3);
    }
    assert.deepEqual(remaining, ['2', '1', '0']);

    const limited = await h.call('get-project-detail', { headers: apiKey(key) });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'RATE_LIMITED');
    assert.equal(limited.body.error, 'Too Many Requests');
    assert.equal(limited.body.message, 'Too many requests: retry after 1 s');
    assert.equal(header(limited, 'retry-after'), '1');
    assert.equal(header(limited, 'ratelimit-limit'), '3');
    assert.equal(header(limited, 'ratelimit-remaining'), '0');
    assert.ok(Number(header(limited, 'ratelimit-reset')) >= 1);
  });

  it('lets the credential through again once Retry-After has passed', async () => {
    const { apiKey: key } = await h.project('Refill');
    for (let i = 0; i < 3; i++)
      assert.equal((await h.call('get-project-detail', { headers: apiKey(key) })).status, 200);
    const limited = await h.call('get-project-detail', { headers: apiKey(key) });
    assert.equal(limited.status, 429);
    await sleep(Number(header(limited, 'retry-after')) * 1000 + 50);
    const again = await h.call('get-project-detail', { headers: apiKey(key) });
    assert.equal(again.status, 200);
    assert.equal(header(again, 'ratelimit-remaining'), '0');
  });

  it('is keyed on the credential, not the address: another key from the same address is not limited', async () => {
    const { apiKey: first } = await h.project('First');
    const { apiKey: second } = await h.project('Second');
    for (let i = 0; i < 3; i++) await h.call('get-project-detail', { headers: apiKey(first) });
    assert.equal((await h.call('get-project-detail', { headers: apiKey(first) })).status, 429);
    const other = await h.call('get-project-detail', { headers: apiKey(second) });
    assert.equal(other.status, 200);
    assert.equal(header(other, 'ratelimit-remaining'), '2');
  });

  it('keys an access token on its user and project: the same user in another project has its own limit', async () => {
    const { project: a } = await h.project('Token A');
    const { project: b } = await h.project('Token B');
    const { userId, token } = await h.member(a.id, 'reader');
    await setMembership(h.db, { projectId: b.id, userId, role: 'reader' });
    const inA = { ...bearer(token), 'x-project-id': String(a.id) };
    for (let i = 0; i < 3; i++) assert.equal((await h.call('get-project-detail', { headers: inA })).status, 200);
    assert.equal((await h.call('get-project-detail', { headers: inA })).status, 429);
    const inB = await h.call('get-project-detail', { headers: { ...bearer(token), 'x-project-id': String(b.id) } });
    assert.equal(inB.status, 200);
    // get-projects acts as the user alone, outside any project.
    assert.equal((await h.call('get-projects', { headers: bearer(token) })).status, 200);
  });

  it('counts requests that fail validation after authentication, with the headers on the 400', async () => {
    const { apiKey: key } = await h.project('Invalid bodies');
    const bad = await h.call('import-contract', { headers: apiKey(key), body: { networkId: 5 } });
    assert.equal(bad.status, 400);
    assert.equal(header(bad, 'ratelimit-remaining'), '2');
    await h.call('import-contract', { headers: apiKey(key), body: { networkId: 5 } });
    await h.call('import-contract', { headers: apiKey(key), body: { networkId: 5 } });
    const limited = await h.call('import-contract', { headers: apiKey(key), body: { networkId: 5 } });
    assert.equal(limited.status, 429);
  });

  it('leaves health routes, unknown routes and preflight requests alone', async () => {
    for (const url of ['/healthz', '/public-api/v3/nothing-here']) {
      for (let i = 0; i < 5; i++) {
        const res = await h.app.inject({ method: 'GET', url });
        assert.notEqual(res.statusCode, 429);
        assert.equal(res.headers['ratelimit-limit'], undefined);
      }
    }
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: DETAIL,
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['ratelimit-limit'], undefined);
  });

  it('documents 429 with Retry-After and the RateLimit headers on every operation', () => {
    const { operations } = createResponseValidator();
    assert.equal(operations.size, routes.length);
    for (const [operationId, op] of operations) {
      const limited = op.responses['429'] as { headers?: Record<string, unknown> } | undefined;
      assert.ok(limited, `${operationId} lists no 429`);
      assert.deepEqual(Object.keys(limited.headers ?? {}).sort(), [
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
      ]);
      const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1] as {
        headers?: Record<string, unknown>;
      };
      assert.ok(success.headers?.['RateLimit-Remaining'], `${operationId}: success without RateLimit headers`);
    }
  });
});

describe('rate limits shared by several API processes on one database', () => {
  let h: Harness;
  let second: FastifyInstance;
  const settings = { perMinute: 60, burst: 4, authFailuresPerMinute: 0 };

  before(async () => {
    h = await createHarness({ rateLimit: settings });
    // A second app on the same database: its own limiter, as another process would have.
    second = buildApp({ ...h.deps, rateLimit: settings });
    await second.ready();
  });
  after(async () => {
    await second.close();
    await h.close();
  });

  const get = (app: FastifyInstance, key: string) =>
    app.inject({ method: 'GET', url: DETAIL, headers: apiKey(key) }).then((r) => r.statusCode);

  it('one bucket: what one process let through counts in the other', async () => {
    const { apiKey: key } = await h.project('Shared');
    assert.deepEqual([await get(h.app, key), await get(second, key)], [200, 200]);
    assert.deepEqual([await get(second, key), await get(h.app, key)], [200, 200]);
    assert.equal(await get(h.app, key), 429);
    assert.equal(await get(second, key), 429);
  });

  it('concurrent requests over both processes: exactly the burst gets through', async () => {
    const { apiKey: key } = await h.project('Concurrent');
    const statuses = await Promise.all(Array.from({ length: 24 }, (_, i) => get(i % 2 ? second : h.app, key)));
    assert.equal(statuses.filter((s) => s === 200).length, 4);
    assert.equal(statuses.filter((s) => s === 429).length, 20);
  });

  it('a large bucket taken ahead in batches is never overspent by the two processes together', async () => {
    // 300 at once, 5 a second: each process takes 3 tokens at a time from the shared row.
    const large = { perMinute: 300, burst: 300, authFailuresPerMinute: 0 };
    const one = buildApp({ ...h.deps, rateLimit: large });
    const two = buildApp({ ...h.deps, rateLimit: large });
    try {
      const { apiKey: key } = await h.project('Batched');
      const started = Date.now();
      const statuses = await Promise.all(Array.from({ length: 400 }, (_, i) => get(i % 2 ? two : one, key)));
      const refilled = Math.ceil(((Date.now() - started) / 1000) * 5);
      const passed = statuses.filter((s) => s === 200).length;
      assert.ok(passed <= 300 + refilled, `${passed} passed, more than 300 + ${refilled} refilled`);
      // Up to a batch per process may be left unused when the requests stop.
      assert.ok(passed >= 300 - 2 * 3, `${passed} passed, the bucket held 300`);
      assert.equal(statuses.filter((s) => s === 429).length, 400 - passed);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('prunes buckets that are full again', async () => {
    await h.db.query(
      `INSERT INTO rate_limit_buckets (bucket, tokens, updated_at, full_at)
       VALUES ('key:stale', 4, now() - interval '1 hour', now() - interval '1 hour'),
              ('key:busy', 0, now(), now() + interval '1 hour')`,
    );
    await createRateLimiter(h.db, settings).prune();
    const { rows } = await h.db.query<{ bucket: string }>(
      "SELECT bucket FROM rate_limit_buckets WHERE bucket IN ('key:stale', 'key:busy')",
    );
    assert.deepEqual(
      rows.map((r) => r.bucket),
      ['key:busy'],
    );
  });
});

/** `main.ts --role api` as its own process, configured by the environment as in production. */
async function spawnApi(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(await bundledEntry('apps/api/src/main.ts')), '--role', 'api'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', API_PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`api did not start within 60 s: ${stderr}`)), 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('mountain api running')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`api exited with ${code}: ${stderr}`));
    });
  });
  return { url: `http://127.0.0.1:${port}${DETAIL}`, child };
}

describe('two API processes (main.ts --role api) configured with RATE_LIMIT_*', () => {
  let h: Harness;
  const children: ChildProcess[] = [];

  before(async () => {
    h = await createHarness();
  });
  after(async () => {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await h.close();
  });

  it('share one limit per key: the burst is spent across both, then both answer 429', async () => {
    const env = {
      DATABASE_URL: String(h.db.pool.options.connectionString),
      MASTER_KEY: h.masterKey.toString('base64'),
      TOKEN_SIGNING_KEY: h.tokenSigningKey.toString('base64'),
      RATE_LIMIT_PER_MINUTE: '6',
      RATE_LIMIT_BURST: '4',
    };
    const [one, two] = await Promise.all([spawnApi(env), spawnApi(env)]);
    children.push(one.child, two.child);
    const { apiKey: key } = await h.project('Two processes');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(i % 2 ? two.url : one.url, { headers: apiKey(key) });
      statuses.push(res.status);
      if (res.status === 429) assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.equal(res.headers.get('ratelimit-limit'), '4');
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429, 429, 429]);
  });
});

describe('requests refused by authentication, per client address', () => {
  let h: Harness;

  before(async () => {
    h = await createHarness({ rateLimit: { perMinute: 60_000, burst: 60_000, authFailuresPerMinute: 3 } });
  });
  after(() => h.close());

  it('answers 429 after the limit of refused requests, while valid credentials in use from that address still pass', async () => {
    const { apiKey: key } = await h.project('Victim');
    // In use from the address before the refusals: the limiter knows it valid.
    assert.equal((await h.call('get-project-detail', { headers: apiKey(key) })).status, 200);
    const wrong = `${key.slice(0, -4)}XXXX`;
    const refused: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.call('get-project-detail', { headers: apiKey(wrong) });
      refused.push(res.status);
      assert.equal(header(res, 'ratelimit-limit'), '3');
      assert.equal(header(res, 'ratelimit-remaining'), String(2 - i));
    }
    assert.deepEqual(refused, [401, 401, 401]);

    const limited = await h.call('get-project-detail', { headers: apiKey(wrong) });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'RATE_LIMITED');
    assert.ok(Number(header(limited, 'retry-after')) >= 1);
    // Other refusals from the address are held back too: no credentials, a bad token.
    assert.equal((await h.call('get-project-detail', {})).status, 429);
    assert.equal((await h.call('get-project-detail', { headers: bearer('not-a-token') })).status, 429);

    const ok = await h.call('get-project-detail', { headers: apiKey(key) });
    assert.equal(ok.status, 200);
    assert.equal(header(ok, 'ratelimit-limit'), '60000');
    // An access token's signature is checked before any look-up: a valid one passes too.
    const { project } = await h.project('Victim’s other project');
    const { token } = await h.member(project.id, 'reader');
    assert.equal((await h.call('get-project-detail', { headers: bearer(token) })).status, 200);
    // A valid key the limiter has not seen waits with the address: it cannot be told from a guess unread.
    const { apiKey: unseen } = await h.project('Not yet used');
    const held = await h.call('get-project-detail', { headers: apiKey(unseen) });
    assert.equal(held.status, 429);
    assert.ok(Number(header(held, 'retry-after')) >= 1);
  });

  it('is kept per address: another address is refused with 401, not 429', async () => {
    const res = await h.app.inject({ method: 'GET', url: DETAIL, remoteAddress: '192.0.2.7' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['ratelimit-remaining'], '2');
  });
});

describe('rate limiting turned off', () => {
  let h: Harness;

  before(async () => {
    h = await createHarness({ rateLimit: { perMinute: 0, burst: 1, authFailuresPerMinute: 0 } });
  });
  after(() => h.close());

  it('answers without RateLimit headers and never 429', async () => {
    const { apiKey: key } = await h.project('Unlimited');
    for (let i = 0; i < 5; i++) {
      const res = await h.call('get-project-detail', { headers: apiKey(key) });
      assert.equal(res.status, 200);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
    for (let i = 0; i < 5; i++) assert.equal((await h.call('get-project-detail', {})).status, 401);
  });
});

describe('the auth-failure limit is asked before the database, and sign-in links have their own', () => {
  let h: Harness;
  let app: FastifyInstance;
  /** Every statement the app sent to the database. */
  const statements: string[] = [];

  before(async () => {
    h = await createHarness();
    const db = new Proxy(h.db, {
      get(target, property) {
        if (property === 'query') {
          return (text: string, values?: unknown[], name?: string) => {
            statements.push(text);
            return target.query(text, values, name);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    app = buildApp({ ...h.deps, db, rateLimit: { perMinute: 60_000, burst: 60_000, authFailuresPerMinute: 3 } });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await h?.close();
  });

  const detail = (remoteAddress: string, key: string) =>
    app.inject({ method: 'GET', url: DETAIL, remoteAddress, headers: apiKey(key) });
  const keyLookups = () => statements.filter((text) => /\bFROM api_keys\b/.test(text)).length;

  it('answers 429 to a key-shaped value from an address past its limit without looking it up', async () => {
    const address = '198.51.100.20';
    const guesses: number[] = [];
    for (let i = 0; i < 4; i++) guesses.push((await detail(address, issueApiKey('test').key)).statusCode);
    assert.deepEqual(guesses, [401, 401, 401, 429]);
    assert.equal(keyLookups(), 4, 'each guess up to the refusal was looked up');

    statements.length = 0;
    const held = await detail(address, issueApiKey('test').key);
    assert.equal(held.statusCode, 429);
    assert.equal(held.json().code, 'RATE_LIMITED');
    assert.ok(Number(held.headers['retry-after']) >= 1);
    assert.equal(keyLookups(), 0, `no look-up of the key: ${statements.join(' | ')}`);
    // Another address still has its look-ups.
    assert.equal((await detail('198.51.100.21', issueApiKey('test').key)).statusCode, 401);
    assert.equal(keyLookups(), 1);
  });

  it('lets an address past its limit of refusals still exchange a sign-in link', async () => {
    const address = '198.51.100.30';
    for (let i = 0; i < 4; i++) await detail(address, issueApiKey('test').key);
    assert.equal((await detail(address, issueApiKey('test').key)).statusCode, 429);

    const user = await h.user();
    const exchange = (code: string) =>
      app.inject({
        method: 'POST',
        url: '/public-api/v3/console/exchange-console-link',
        remoteAddress: address,
        payload: { code },
      });
    const exchanged = await exchange(await h.consoleLinkCode(user.id));
    assert.equal(exchanged.statusCode, 200, exchanged.body);
    assert.equal(exchanged.headers['ratelimit-remaining'], '2', 'counted in the links’ own bucket');
    // The links' bucket has its own limit: unknown codes spend it, and then exchanges from there wait.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await exchange('A'.repeat(43))).statusCode);
    assert.deepEqual(statuses, [401, 401, 429]);
  });
});

describe('TRUSTED_PROXIES: the client an address of a listed proxy forwards for', () => {
  let h: Harness;
  let app: FastifyInstance;
  const lines: string[] = [];

  before(async () => {
    h = await createHarness();
    app = buildApp(
      {
        ...h.deps,
        rateLimit: { perMinute: 60_000, burst: 60_000, authFailuresPerMinute: 2 },
        trustedProxies: ['10.0.0.0/8', '2001:db8::1'],
      },
      { logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } },
    );
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await h?.close();
  });

  const refusedFrom = (remoteAddress: string, forwardedFor?: string) =>
    app
      .inject({
        method: 'GET',
        url: DETAIL,
        remoteAddress,
        headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      })
      .then((res) => res.statusCode);

  it('counts refusals against the forwarded client when the request comes from a listed proxy', async () => {
    // One client behind two of the proxies: its own limit, whichever proxy it came through.
    assert.deepEqual(
      [
        await refusedFrom('10.0.0.5', '203.0.113.9'),
        await refusedFrom('10.7.7.7', '203.0.113.9'),
        await refusedFrom('10.0.0.5', '203.0.113.9'),
      ],
      [401, 401, 429],
    );
    // Another client behind the same proxy is not held back by it.
    assert.equal(await refusedFrom('10.0.0.5', '203.0.113.10'), 401);
    // Proxies in a chain: the nearest address that is no listed proxy is the client.
    assert.equal(await refusedFrom('2001:db8::1', '203.0.113.9, 10.1.1.1'), 429);
    assert.equal(await refusedFrom('2001:db8::1', '203.0.113.9, 192.0.2.200'), 401);
  });

  it('ignores X-Forwarded-For from any other address', async () => {
    // Sent by the client itself: its own address is counted, whatever it claims.
    assert.deepEqual(
      [
        await refusedFrom('192.0.2.50', '203.0.113.77'),
        await refusedFrom('192.0.2.50', '203.0.113.78'),
        await refusedFrom('192.0.2.50', '203.0.113.79'),
      ],
      [401, 401, 429],
    );
    assert.equal(await refusedFrom('10.0.0.5', '203.0.113.77'), 401, 'the claimed client was never counted');
    // Without the setting, a proxy's forwarded header is ignored too: every client is the proxy.
    const plain = buildApp({ ...h.deps, rateLimit: { perMinute: 60_000, burst: 60_000, authFailuresPerMinute: 2 } });
    try {
      const from = (client: string) =>
        plain
          .inject({ method: 'GET', url: DETAIL, remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': client } })
          .then((res) => res.statusCode);
      assert.deepEqual(
        [await from('203.0.113.1'), await from('203.0.113.2'), await from('203.0.113.3')],
        [401, 401, 429],
      );
    } finally {
      await plain.close();
    }
  });

  it('logs the forwarded client as the request’s remoteAddress', async () => {
    lines.length = 0;
    await refusedFrom('10.0.0.5', '203.0.113.42');
    const incoming = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'incoming request');
    assert.equal(incoming?.req?.remoteAddress, '203.0.113.42', lines.join(''));
  });
});
