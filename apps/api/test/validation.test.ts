import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { routes } from '#api/routes/index.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';
import { transferSubscription } from './helpers/eventNotifier.ts';

const ADDRESS = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const UUID = '6f1c2b7e-3d4a-4e8b-9c1d-2a3b4c5d6e7f';
const subscription = transferSubscription(ADDRESS);
const omit = (object: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

/** [operation, what is wrong, body or query, the field named in the 400]. */
const CASES: [string, string, { body?: unknown; query?: Record<string, string> }, string][] = [
  ...Object.keys(subscription).map((field): [string, string, { body: unknown }, string] => [
    'create-subscription',
    `${field} missing`,
    { body: omit(subscription, field) },
    `body.${field}`,
  ]),
  ['create-subscription', 'networkId not supported', { body: { ...subscription, networkId: 5 } }, 'body.networkId'],
  ['create-subscription', 'networkId as a string', { body: { ...subscription, networkId: '1337' } }, 'body.networkId'],
  ['create-subscription', 'scanInterval below 5', { body: { ...subscription, scanInterval: 4 } }, 'body.scanInterval'],
  [
    'create-subscription',
    'scanInterval not an integer',
    { body: { ...subscription, scanInterval: 5.5 } },
    'body.scanInterval',
  ],
  [
    'create-subscription',
    'initialBlockNumber below 0',
    { body: { ...subscription, initialBlockNumber: -1 } },
    'body.initialBlockNumber',
  ],
  [
    'create-subscription',
    'initialBlockNumber as text',
    { body: { ...subscription, initialBlockNumber: '10' } },
    'body.initialBlockNumber',
  ],
  [
    'create-subscription',
    'webhookURL not a URI',
    { body: { ...subscription, webhookURL: 'not a url' } },
    'body.webhookURL',
  ],
  [
    'create-subscription',
    'webhookURL not http(s)',
    { body: { ...subscription, webhookURL: 'ftp://example.com/x' } },
    'body.webhookURL',
  ],
  [
    'create-subscription',
    'webhookMaxRetries below 0',
    { body: { ...subscription, webhookMaxRetries: -1 } },
    'body.webhookMaxRetries',
  ],
  ['create-subscription', 'address not an address', { body: { ...subscription, address: '0x1234' } }, 'body.address'],
  [
    'create-subscription',
    'subscriptionName over 256 characters',
    { body: { ...subscription, subscriptionName: 'x'.repeat(257) } },
    'body.subscriptionName',
  ],
  ['create-subscription', 'unknown field', { body: { ...subscription, color: 'blue' } }, 'body.color'],
  ['update-subscription-webhook', 'id missing', { body: { webhookEnabled: true } }, 'body.id'],
  ['update-subscription-webhook', 'id not a uuid', { body: { id: '42' } }, 'body.id'],
  [
    'update-subscription-webhook',
    'webhookURL not a URI',
    { body: { id: UUID, webhookURL: 'nope' } },
    'body.webhookURL',
  ],
  [
    'update-subscription-webhook',
    'webhookMaxRetries below 0',
    { body: { id: UUID, webhookMaxRetries: -3 } },
    'body.webhookMaxRetries',
  ],
  [
    'update-subscription-webhook',
    'webhookEnabled not boolean',
    { body: { id: UUID, webhookEnabled: 'yes' } },
    'body.webhookEnabled',
  ],
  ['get-records', 'subscriptionId missing', { body: {} }, 'body.subscriptionId'],
  ['resend-failed-webhook', 'subscriptionId missing', { body: { force: true } }, 'body.subscriptionId'],
  ['resend-failed-webhook', 'force not boolean', { body: { subscriptionId: UUID, force: 1 } }, 'body.force'],
  [
    'import-contract',
    'networkId missing',
    { body: { address: ADDRESS, formattedAbi: ['function f()'] } },
    'body.networkId',
  ],
  ['import-contract', 'address missing', { body: { networkId: 1, formattedAbi: ['function f()'] } }, 'body.address'],
  ['import-contract', 'formattedAbi missing', { body: { networkId: 1, address: ADDRESS } }, 'body.formattedAbi'],
  [
    'import-contract',
    'formattedAbi not an array',
    { body: { networkId: 1, address: ADDRESS, formattedAbi: 'function f()' } },
    'body.formattedAbi',
  ],
  [
    'import-contract',
    'formattedAbi entry not a string',
    { body: { networkId: 1, address: ADDRESS, formattedAbi: ['function f()', 7] } },
    'body.formattedAbi[1]',
  ],
  [
    'import-contract',
    'networkId unknown',
    { body: { networkId: 56, address: ADDRESS, formattedAbi: ['function f()'] } },
    'body.networkId',
  ],
  [
    'activate-contract-function',
    'contractId missing',
    { body: { formattedAbiFunction: 'function f()' } },
    'body.contractId',
  ],
  [
    'activate-contract-function',
    'formattedAbiFunction missing',
    { body: { contractId: 1 } },
    'body.formattedAbiFunction',
  ],
  [
    'deactivate-contract-function',
    'contractId missing',
    { body: { formattedAbiFunction: 'function f()' } },
    'body.contractId',
  ],
  [
    'deactivate-contract-function',
    'formattedAbiFunction missing',
    { body: { contractId: 1 } },
    'body.formattedAbiFunction',
  ],
  ['get-contract-activated-functions', 'contractId missing', { body: {} }, 'body.contractId'],
  ['get-contract-activated-functions', 'contractId huge', { body: { contractId: 1e20 } }, 'body.contractId'],
  [
    'execute-transaction',
    'contractActivatedFunctionId missing',
    { body: { functionArgs: [], idempotencyKey: 'k' } },
    'body.contractActivatedFunctionId',
  ],
  [
    'execute-transaction',
    'functionArgs missing',
    { body: { contractActivatedFunctionId: 1, idempotencyKey: 'k' } },
    'body.functionArgs',
  ],
  [
    'execute-transaction',
    'idempotencyKey missing',
    { body: { contractActivatedFunctionId: 1, functionArgs: [] } },
    'body.idempotencyKey',
  ],
  [
    'execute-transaction',
    'functionArgs with a number',
    { body: { contractActivatedFunctionId: 1, functionArgs: [1], idempotencyKey: 'k' } },
    'body.functionArgs[0]',
  ],
  [
    'execute-transaction',
    'idempotencyKey empty',
    { body: { contractActivatedFunctionId: 1, functionArgs: [], idempotencyKey: '' } },
    'body.idempotencyKey',
  ],
  ['get-transaction', 'transactionId missing', { query: {} }, 'querystring.transactionId'],
  ['get-transaction', 'transactionId not a uuid', { query: { transactionId: 'abc' } }, 'querystring.transactionId'],
  ['get-transactions', 'page 0', { query: { page: '0' } }, 'querystring.page'],
  ['get-transactions', 'perPage over 100', { query: { perPage: '101' } }, 'querystring.perPage'],
  ['get-transactions', 'perPage not a number', { query: { perPage: 'ten' } }, 'querystring.perPage'],
  ['get-transactions', 'unknown status', { query: { status: 'lost' } }, 'querystring.status'],
  ['get-transactions', 'unknown parameter', { query: { sort: 'asc' } }, 'querystring.sort'],
  // Found by `npm run fuzz`: each of these passed validation and answered 500.
  ...['Infinity', '-Infinity', '0x10', '1e1', ' 5'].map(
    (perPage): [string, string, { query: Record<string, string> }, string] => [
      'get-transactions',
      `perPage ${JSON.stringify(perPage)} (query integers are decimal digits)`,
      { query: { perPage } },
      'querystring.perPage',
    ],
  ),
  ['get-transactions', 'page Infinity', { query: { page: 'Infinity' } }, 'querystring.page'],
  [
    'create-subscription',
    'initialBlockNumber above 2^53 - 1',
    { body: { ...subscription, initialBlockNumber: 2 ** 70 } },
    'body.initialBlockNumber',
  ],
  [
    'create-subscription',
    'webhookURL without a host',
    { body: { ...subscription, webhookURL: 'https://' } },
    'body.webhookURL',
  ],
  [
    'update-subscription-webhook',
    'webhookURL with port 99999',
    { body: { id: UUID, webhookURL: 'http://127.0.0.1:99999/' } },
    'body.webhookURL',
  ],
  [
    'get-records',
    'subscriptionId as a urn:uuid: URN',
    { body: { subscriptionId: `urn:uuid:${UUID}` } },
    'body.subscriptionId',
  ],
  [
    'get-transaction',
    'transactionId as a urn:uuid: URN',
    { query: { transactionId: `urn:uuid:${UUID}` } },
    'querystring.transactionId',
  ],
  [
    'execute-transaction',
    'idempotencyKey with a NUL character',
    { body: { contractActivatedFunctionId: 1, functionArgs: [], idempotencyKey: 'a\u0000b' } },
    'body.idempotencyKey',
  ],
  [
    'execute-transaction',
    'functionArgs entry with a NUL character',
    { body: { contractActivatedFunctionId: 1, functionArgs: ['1', '\u0000'], idempotencyKey: 'k' } },
    'body.functionArgs[1]',
  ],
  [
    'create-subscription',
    'subscriptionName with a NUL character',
    { body: { ...subscription, subscriptionName: 'Trans\u0000fers' } },
    'body.subscriptionName',
  ],
  [
    'replay-webhook-messages',
    'since in the year 0000',
    { body: { endpointId: UUID, since: '0000-01-01T00:00:00Z' } },
    'body.since',
  ],
  [
    'get-webhook-attempts',
    'until with a UTC offset of 16 hours',
    { query: { until: '2026-11-20T10:15:30+16:00' } },
    'querystring.until',
  ],
];

describe('validation of every rule of SPEC §5', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await createHarness();
    key = (await h.project()).apiKey;
  });
  after(() => h.close());

  for (const [operationId, what, request, field] of CASES) {
    it(`${operationId}: ${what} → 400 naming ${field}`, async () => {
      const res = await h.call(operationId, { ...request, headers: apiKey(key) });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      const fields = res.body.details.map((d: { field: string }) => d.field);
      assert.ok(fields.includes(field), `expected ${field} in ${JSON.stringify(res.body.details)}`);
      assert.match(res.body.message, new RegExp(field.replace(/[.[\]]/g, '\\$&')));
    });
  }

  it('lists every wrong field at once', async () => {
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: { ...subscription, scanInterval: 1, initialBlockNumber: -5, networkId: 2 },
    });
    const fields = res.body.details.map((d: { field: string }) => d.field).sort();
    assert.deepEqual(fields, ['body.initialBlockNumber', 'body.networkId', 'body.scanInterval']);
  });

  it('accepts the minimums: scanInterval 5, initialBlockNumber 0, webhookMaxRetries 0', async () => {
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: { ...subscription, webhookMaxRetries: 0, webhookURL: 'https://example.com/hook' },
    });
    assert.notEqual(res.status, 400, JSON.stringify(res.body));
  });

  it('accepts the other forms of an RFC 3339 time: offsets to ±15:59, lower case, a space for the T, the year 0001', async () => {
    const res = await h.call('get-webhook-attempts', {
      headers: apiKey(key),
      query: { since: '0001-01-01t00:00:00.123456789-15:59', until: '2026-11-20 10:15:30+1559' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  it('get-projects pages default to 1 and 20', async () => {
    const user = await h.user();
    const res = await h.call('get-projects', { headers: bearer(h.token(user.id)) });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.meta, { pageNumber: 1, perPage: 20, totalPage: 0, totalItems: 0 });
  });
});

describe('bad input never gives a 5xx and writes nothing', () => {
  let h: Harness;
  let key: string;
  let counts: () => Promise<string>;
  before(async () => {
    h = await createHarness();
    key = (await h.project()).apiKey;
    counts = async () => {
      const { rows } = await h.db.query(
        `SELECT (SELECT count(*) FROM projects) p, (SELECT count(*) FROM api_keys) k, (SELECT count(*) FROM system_wallets) w,
                (SELECT count(*) FROM users) u, (SELECT count(*) FROM memberships) m`,
      );
      return JSON.stringify(rows[0]);
    };
  });
  after(() => h.close());

  const bodyRoutes = routes.filter((r) => r.body);
  const badBodies: [string, Record<string, string>, string | Buffer, number, string][] = [
    ['malformed JSON', { 'content-type': 'application/json' }, '{"networkId": 1,', 400, 'INVALID_JSON'],
    ['empty JSON body', { 'content-type': 'application/json' }, '', 400, 'INVALID_JSON'],
    ['a JSON array', { 'content-type': 'application/json' }, '[1,2]', 400, 'VALIDATION_FAILED'],
    ['JSON null', { 'content-type': 'application/json' }, 'null', 400, 'VALIDATION_FAILED'],
    ['wrong content type', { 'content-type': 'text/plain' }, 'hello', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['form encoding', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'oversize body',
      { 'content-type': 'application/json' },
      JSON.stringify({ x: 'y'.repeat(70_000) }),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['deeply nested', { 'content-type': 'application/json' }, `${'['.repeat(5000)}${']'.repeat(5000)}`, 400, ''],
    ['prototype pollution', { 'content-type': 'application/json' }, '{"__proto__": {"admin": true}}', 400, ''],
  ];

  for (const route of bodyRoutes) {
    for (const [what, headers, raw, status, code] of badBodies) {
      it(`${route.operationId}: ${what} → ${status}`, async () => {
        const before = await counts();
        const res = await h.call(route.operationId, { headers: { ...apiKey(key), ...headers }, rawBody: raw });
        assert.equal(res.status, status, JSON.stringify(res.body));
        if (code) assert.equal(res.body.code, code);
        h.validator.assertError(res.body);
        assert.equal(await counts(), before);
      });
    }
  }

  it('a body of 30,000 wrong items: a 400 naming the first 20 fields and how many more, at a bounded cost', async () => {
    // 60 KB, under the body limit: one error per item, which the validator once merged in quadratic time (10 s of
    // CPU for this body) and the answer listed one by one (3 MB).
    const body = { url: 'https://example.com/hook', eventTypes: Array.from({ length: 30_000 }, () => 1) };
    const before = await counts();
    const cpu = process.cpuUsage();
    const res = await h.call('create-webhook-endpoint', { headers: apiKey(key), body });
    const used = process.cpuUsage(cpu);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    h.validator.assertError(res.body);
    assert.equal(res.body.details.length, 20);
    assert.equal(res.body.details[1].field, 'body.eventTypes[0]');
    assert.match(res.body.message, /; and 29981 more$/);
    const ms = (used.user + used.system) / 1000;
    assert.ok(ms < 2_000, `validated with ${Math.round(ms)} ms of CPU`);
    assert.equal(await counts(), before);
  });

  it('an unknown route answers 404 in the error shape', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/public-api/v3/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'ROUTE_NOT_FOUND');
    h.validator.assertError(res.json());
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await h.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-123' } });
    assert.equal(given.headers['x-request-id'], 'trace-123');
    const made = await h.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\u0000' } });
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});
