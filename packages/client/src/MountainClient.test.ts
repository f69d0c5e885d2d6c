// What the client sends: credentials, project selection, bodies and queries; and options checked up front.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_BASE_URL, MountainClient, type MountainClientOptions } from './index.ts';
import { json, type LoopbackServer, startLoopbackServer } from './testing.ts';

describe('MountainClient', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopbackServer((_, res) => json(res, 200, { ok: true }, { 'x-request-id': 'r1' }));
  });
  after(() => server.close());
  const last = () => server.requests.at(-1) as NonNullable<ReturnType<typeof server.requests.at>>;

  it('sends an API key as X-API-Key, and no Authorization', async () => {
    await new MountainClient({ apiKey: 'mtn_test_abc', baseUrl: server.baseUrl }).getContracts();
    assert.equal(last().method, 'GET');
    assert.equal(last().url, '/public-api/v3/contract');
    assert.equal(last().headers['x-api-key'], 'mtn_test_abc');
    assert.equal(last().headers.authorization, undefined);
    assert.equal(last().headers['x-project-id'], undefined);
    assert.equal(last().headers.accept, 'application/json');
  });

  it('sends an access token as Authorization: Bearer, with X-Project-Id when projectId is given', async () => {
    await new MountainClient({ accessToken: 'tok', baseUrl: server.baseUrl }).getProjectDetail();
    assert.equal(last().headers.authorization, 'Bearer tok');
    assert.equal(last().headers['x-project-id'], undefined);
    await new MountainClient({ accessToken: 'tok', projectId: 7, baseUrl: `${server.baseUrl}/` }).getProjectDetail();
    assert.equal(last().url, '/public-api/v3/project/get-project-detail');
    assert.equal(last().headers['x-project-id'], '7');
    assert.equal(last().headers['x-api-key'], undefined);
  });

  it('sends bodies as JSON with POST, and queries without undefined values', async () => {
    const client = new MountainClient({ apiKey: 'k', baseUrl: server.baseUrl });
    await client.getRecords({ subscriptionId: 'b5d6' });
    assert.equal(last().method, 'POST');
    assert.equal(last().url, '/public-api/v3/event-notifier/get-records');
    assert.equal(last().headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(last().body), { subscriptionId: 'b5d6' });
    await client.getTransactions({ page: 2, status: undefined });
    assert.equal(last().url, '/public-api/v3/transaction/get-transactions?page=2');
    await client.getTransaction({ transactionId: 'a b&c' });
    assert.equal(last().url, '/public-api/v3/transaction/get-transaction?transactionId=a+b%26c');
    assert.equal(last().body, '');
  });

  it('uses an injected fetch, and the documented default baseUrl', async () => {
    const urls: string[] = [];
    const fake: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response('{"contracts":[]}', { status: 200 });
    };
    const client = new MountainClient({ apiKey: 'k', fetch: fake });
    assert.equal(client.baseUrl, DEFAULT_BASE_URL);
    assert.deepEqual(await client.getContracts(), { contracts: [] });
    assert.deepEqual(urls, ['http://127.0.0.1:8080/public-api/v3/contract']);
  });

  it('throws on unknown or contradictory options', () => {
    const bad: [unknown, RegExp][] = [
      [{ apiKey: 'k', maxRetry: 3 }, /Unknown MountainClient option: maxRetry/],
      [{}, /exactly one of apiKey and accessToken/],
      [{ apiKey: 'k', accessToken: 't' }, /exactly one of apiKey and accessToken/],
      [{ apiKey: 'k', projectId: 1 }, /projectId goes with an accessToken/],
      [{ accessToken: 't', projectId: 0 }, /projectId must be an integer ≥ 1/],
      [{ apiKey: 'k', maxRetries: -1 }, /maxRetries must be an integer ≥ 0/],
      [{ apiKey: 'k', timeout: 0 }, /timeout must be an integer ≥ 1/],
      [{ apiKey: 'k', baseUrl: 'ftp://x' }, /baseUrl must be an http\(s\) URL/],
      [{ apiKey: '' }, /Bad apiKey/],
    ];
    for (const [options, message] of bad) {
      assert.throws(() => new MountainClient(options as MountainClientOptions), { name: 'TypeError', message });
    }
  });

  it('throws on unknown request options, and on idempotencyKey outside executeTransaction', async () => {
    const client = new MountainClient({ apiKey: 'k', baseUrl: server.baseUrl });
    const count = server.requests.length;
    await assert.rejects(client.getContracts({ retries: 1 } as never), /Unknown request option: retries/);
    await assert.rejects(
      client.getContracts({ idempotencyKey: 'x' }),
      /idempotencyKey is an option of executeTransaction/,
    );
    assert.equal(server.requests.length, count, 'nothing was sent');
  });

  it('library code runs in browsers: no node: imports and no process.env', () => {
    const sources = readdirSync(new URL('.', import.meta.url), { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('testing'),
    );
    assert.ok(sources.length >= 8);
    for (const file of sources) {
      const text = readFileSync(new URL(file, import.meta.url), 'utf8');
      assert.doesNotMatch(text, /from 'node:|require\(/, `${file} imports no Node module`);
      assert.doesNotMatch(text.replace(/^\s*\*.*$/gm, ''), /process\.env/, `${file} reads no environment`);
    }
  });
});
