import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '#api/app.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';
import { transferSubscription } from '../helpers/eventNotifier.ts';

const ADDRESS = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const subscription = transferSubscription(ADDRESS);

describe('event notifier calls', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    const created = await h.project('Events');
    key = created.apiKey;
    projectId = created.project.id;
    otherKey = (await h.project('Someone else')).apiKey;
  });
  after(() => h.close());

  const create = (body: object, k = key) => h.call('create-subscription', { headers: apiKey(k), body });

  it('creates a subscription: 201, the full secret once, defaults, checksummed address, first scan due now', async () => {
    const res = await create({ ...subscription, webhookURL: 'https://example.com/hook' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const s = res.body.eventNotifierSubscription;
    assert.match(s.webhookSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(s.address, '0x5FbDB2315678afecb367f032d93F642f64180aa3');
    assert.equal(s.projectId, projectId);
    assert.equal(s.scanEnabled, true);
    assert.equal(s.webhookEnabled, true);
    assert.equal(s.webhookMaxRetries, 5);
    assert.equal(s.scanStatus, 'idle');
    assert.equal(s.lastScannedBlock, null);
    assert.ok(Date.parse(s.nextScanAt) <= Date.now());

    const list = await h.call('get-subscriptions', { headers: apiKey(key) });
    const listed = list.body.eventNotifierSubscriptions.find((x: { id: string }) => x.id === s.id);
    assert.equal(listed.webhookSecret, `${s.webhookSecret.slice(0, 10)}${'*'.repeat(16)}`);
    const jobs = await h.db.query(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1`, [
      `event-notifier:scan:${s.id}`,
    ]);
    assert.equal(jobs.rows[0]?.n, 1);
  });

  it('without a webhookURL the webhook is disabled; enabling it needs a URL', async () => {
    const s = (await create(subscription)).body.eventNotifierSubscription;
    assert.equal(s.webhookEnabled, false);
    assert.equal(s.webhookURL, null);
    const refused = await h.call('update-subscription-webhook', {
      headers: apiKey(key),
      body: { id: s.id, webhookEnabled: true },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.details[0].field, 'body.webhookEnabled');
    const set = await h.call('update-subscription-webhook', {
      headers: apiKey(key),
      body: { id: s.id, webhookURL: 'https://example.com/new', webhookMaxRetries: 0 },
    });
    assert.equal(set.status, 200);
    assert.equal(set.body.eventNotifierSubscription.webhookEnabled, true);
    assert.equal(set.body.eventNotifierSubscription.webhookMaxRetries, 0);
    const off = await h.call('update-subscription-webhook', {
      headers: apiKey(key),
      body: { id: s.id, webhookEnabled: false },
    });
    assert.equal(off.body.eventNotifierSubscription.webhookEnabled, false);
    assert.equal(off.body.eventNotifierSubscription.webhookURL, 'https://example.com/new');
    assert.match(off.body.eventNotifierSubscription.webhookSecret, /\*{16}$/);
  });

  for (const [what, formattedAbiEvent, expected] of [
    ['not parseable', 'event Transfer(address indexed from', /not a valid human-readable ABI item/],
    ['a function', 'function transfer(address to, uint256 value)', /must be an event \(got a function\)/],
    ['an error', 'error Unauthorized(address caller)', /must be an event \(got a error\)/],
    ['not an ABI item at all', 'Transfer(address,address,uint256)', /not a valid human-readable ABI item/],
    ['empty', '', /must NOT have fewer than 1 characters/],
  ] as const) {
    it(`formattedAbiEvent ${what} → 400 naming body.formattedAbiEvent`, async () => {
      const res = await create({ ...subscription, formattedAbiEvent });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.deepEqual(
        res.body.details.map((d: { field: string }) => d.field),
        ['body.formattedAbiEvent'],
      );
      assert.match(res.body.details[0].message, expected);
    });
  }

  it('refuses webhook URLs on private, loopback and link-local addresses unless allowed', async () => {
    const saved = h.deps.delivery;
    h.deps.delivery = defaultDeliverySettings();
    try {
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://localhost/hook',
        'http://10.1.2.3/hook',
        'http://192.168.0.10/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]/hook',
        'http://[fe80::1]/hook',
      ]) {
        const res = await create({ ...subscription, webhookURL: url });
        assert.equal(res.status, 400, url);
        assert.equal(res.body.code, 'WEBHOOK_URL_REFUSED');
        assert.equal(res.body.details[0].field, 'body.webhookURL');
      }
      const s = (await create(subscription)).body.eventNotifierSubscription;
      const update = await h.call('update-subscription-webhook', {
        headers: apiKey(key),
        body: { id: s.id, webhookURL: 'http://172.16.5.4/x' },
      });
      assert.equal(update.status, 400);
      assert.equal(
        update.body.message,
        'The webhook URL is refused: its host is a private address, which this deployment does not call',
      );
      assert.equal((await create({ ...subscription, webhookURL: 'https://93.184.215.14/hook' })).status, 201);
    } finally {
      h.deps.delivery = saved;
    }
    // The tests allow loopback (a local receiver), as npm start does, but still not the rest of the private ranges.
    assert.equal((await create({ ...subscription, webhookURL: 'http://127.0.0.1:9999/hook' })).status, 201);
    assert.equal((await create({ ...subscription, webhookURL: 'http://10.0.0.1/hook' })).status, 400);
  });

  it('refuses IPv6 forms embedding a non-public IPv4 address, naming the kind of address and never the address', async () => {
    const saved = h.deps.delivery;
    h.deps.delivery = defaultDeliverySettings();
    try {
      for (const [url, kind] of [
        ['http://[64:ff9b::a9fe:a9fe]/', 'a link-local address, embedded in a NAT64 IPv6 address'],
        ['http://[::ffff:0:a9fe:a9fe]/', 'a link-local address, embedded in an IPv4-translated IPv6 address'],
        ['http://[::a9fe:a9fe]/', 'a link-local address, embedded in an IPv4-compatible IPv6 address'],
        ['http://[2002:a00:1::1]/', 'a private address, embedded in a 6to4 IPv6 address'],
        ['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', 'a private address, embedded in a Teredo IPv6 address'],
        ['http://192.0.0.170/', 'a reserved or special-purpose address'],
        ['http://169.254.169.254/latest/meta-data', 'a link-local address'],
      ]) {
        const reason = `its host is ${kind}, which this deployment does not call`;
        const res = await create({ ...subscription, webhookURL: url });
        assert.equal(res.status, 400, url);
        assert.equal(res.body.code, 'WEBHOOK_URL_REFUSED');
        assert.equal(res.body.message, `The webhook URL is refused: ${reason}`);
        assert.deepEqual(res.body.details, [{ field: 'body.webhookURL', message: reason }]);
      }
      const s = (await create(subscription)).body.eventNotifierSubscription;
      const update = await h.call('update-subscription-webhook', {
        headers: apiKey(key),
        body: { id: s.id, webhookURL: 'http://[64:ff9b::a00:1]/x' },
      });
      assert.equal(update.status, 400);
      assert.equal(
        update.body.message,
        'The webhook URL is refused: its host is a private address, embedded in a NAT64 IPv6 address, which this deployment does not call',
      );
      // The same forms around a public IPv4 address are the public internet.
      for (const url of ['https://[64:ff9b::5db8:d70e]/hook', 'https://[2002:5db8:d70e::1]/hook']) {
        assert.equal((await create({ ...subscription, webhookURL: url })).status, 201, url);
      }
    } finally {
      h.deps.delivery = saved;
    }
  });

  it('refuses webhook ports other than 80, 443 and 1024-65535 (or those configured), on create and update', async () => {
    const reason = (port: number, ports = '80, 443 and 1024-65535') =>
      `its port ${port} is not one this deployment calls (webhook URLs may use ports ${ports})`;
    for (const port of [22, 25, 1023]) {
      const res = await create({ ...subscription, webhookURL: `https://93.184.215.14:${port}/hook` });
      assert.equal(res.status, 400, String(port));
      assert.equal(res.body.code, 'WEBHOOK_URL_REFUSED');
      assert.equal(res.body.message, `The webhook URL is refused: ${reason(port)}`);
      assert.deepEqual(res.body.details, [{ field: 'body.webhookURL', message: reason(port) }]);
    }
    const s = (await create({ ...subscription, webhookURL: 'https://93.184.215.14:8443/hook' })).body
      .eventNotifierSubscription;
    const update = (webhookURL: string) =>
      h.call('update-subscription-webhook', { headers: apiKey(key), body: { id: s.id, webhookURL } });
    assert.equal((await update('http://93.184.215.14:6379/')).status, 200);
    const refused = await update('http://93.184.215.14:111/');
    assert.equal(refused.status, 400);
    assert.equal(refused.body.message, `The webhook URL is refused: ${reason(111)}`);

    const saved = h.deps.delivery;
    h.deps.delivery = { ...defaultDeliverySettings(), webhookAllowedPorts: [[443, 443]] };
    try {
      assert.equal((await create({ ...subscription, webhookURL: 'https://93.184.215.14/hook' })).status, 201);
      const other = await create({ ...subscription, webhookURL: 'https://93.184.215.14:8443/hook' });
      assert.equal(other.status, 400);
      assert.equal(other.body.message, `The webhook URL is refused: ${reason(8443, '443')}`);
    } finally {
      h.deps.delivery = saved;
    }
  });

  it('another project’s subscription is invisible: absent from lists, 404 on every call', async () => {
    const mine = (await create(subscription)).body.eventNotifierSubscription;
    const theirs = await h.call('get-subscriptions', { headers: apiKey(otherKey) });
    assert.equal(theirs.status, 200);
    assert.ok(!theirs.body.eventNotifierSubscriptions.some((s: { id: string }) => s.id === mine.id));
    for (const [operationId, body] of [
      ['update-subscription-webhook', { id: mine.id, webhookEnabled: false }],
      ['get-records', { subscriptionId: mine.id }],
      ['resend-failed-webhook', { subscriptionId: mine.id, force: true }],
    ] as const) {
      const res = await h.call(operationId, { headers: apiKey(otherKey), body });
      assert.equal(res.status, 404, operationId);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    const unchanged = await h.call('get-subscriptions', { headers: apiKey(key) });
    assert.ok(
      unchanged.body.eventNotifierSubscriptions.find((s: { id: string }) => s.id === mine.id).webhookEnabled === false,
    );
  });

  it('a reader reads subscriptions and records, and may not resend (nor create or change webhooks)', async () => {
    const { token } = await h.member(projectId, 'reader');
    const res = await h.call('get-subscriptions', { headers: bearer(token) });
    assert.equal(res.status, 200);
    assert.ok(res.body.eventNotifierSubscriptions.length > 0);
    const s = res.body.eventNotifierSubscriptions[0];
    const records = await h.call('get-records', { headers: bearer(token), body: { subscriptionId: s.id } });
    assert.deepEqual(records.body, {
      eventNotifierRecords: [],
      meta: { pageNumber: 1, perPage: 1000, totalPage: 0, totalItems: 0 },
    });
    const resend = await h.call('resend-failed-webhook', { headers: bearer(token), body: { subscriptionId: s.id } });
    assert.equal(resend.status, 403);
    const repoint = await h.call('update-subscription-webhook', {
      headers: bearer(token),
      body: { id: s.id, webhookURL: 'https://reader.example.com/steal' },
    });
    assert.equal(repoint.status, 403);
    assert.match(repoint.body.message, /admin|editor/);
  });

  it('unknown subscription ids are 404', async () => {
    const res = await h.call('get-records', {
      headers: apiKey(key),
      body: { subscriptionId: '00000000-0000-4000-8000-000000000000' },
    });
    assert.equal(res.status, 404);
    assert.match(res.body.message, /Subscription 00000000-0000-4000-8000-000000000000 was not found/);
  });
});

describe('paging of subscriptions and records', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await createHarness();
    key = (await h.project('Paged')).apiKey;
  });
  after(() => h.close());

  it('get-subscriptions pages newest first, 100 by default, and says how many there are', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await h.call('create-subscription', {
        headers: apiKey(key),
        body: { ...transferSubscription('0x5FbDB2315678afecb367f032d93F642f64180aa3'), subscriptionName: `S${i}` },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.eventNotifierSubscription.id);
    }
    const all = await h.call('get-subscriptions', { headers: apiKey(key) });
    assert.deepEqual(all.body.meta, { pageNumber: 1, perPage: 100, totalPage: 1, totalItems: 5 });
    const second = await h.call('get-subscriptions', { headers: apiKey(key), query: { page: '2', perPage: '2' } });
    assert.deepEqual(
      second.body.eventNotifierSubscriptions.map((s: { id: string }) => s.id),
      [...ids].reverse().slice(2, 4),
    );
    assert.deepEqual(second.body.meta, { pageNumber: 2, perPage: 2, totalPage: 3, totalItems: 5 });
    const tooMany = await h.call('get-subscriptions', { headers: apiKey(key), query: { perPage: '101' } });
    assert.equal(tooMany.status, 400);
    const records = await h.call('get-records', {
      headers: apiKey(key),
      body: { subscriptionId: ids[0], page: 3, perPage: 10 },
    });
    assert.deepEqual(records.body.meta, { pageNumber: 3, perPage: 10, totalPage: 0, totalItems: 0 });
    const refused = await h.call('get-records', {
      headers: apiKey(key),
      body: { subscriptionId: ids[0], perPage: 1001 },
    });
    assert.equal(refused.status, 400);
  });
});

describe('subscriptions per project', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it('past MAX_SUBSCRIPTIONS_PER_PROJECT: 409 SUBSCRIPTION_LIMIT_REACHED, nothing written; other projects unaffected', async () => {
    const app = buildApp({
      ...h.deps,
      eventNotifier: { ...defaultEventNotifierSettings('test'), maxSubscriptionsPerProject: 2 },
    });
    const create = (key: string, name: string) =>
      app.inject({
        method: 'POST',
        url: '/public-api/v3/event-notifier/create-subscription',
        headers: apiKey(key),
        payload: { ...subscription, subscriptionName: name },
      });
    try {
      const { apiKey: a, project } = await h.project('Full');
      const projectId = project.id;
      const { apiKey: b } = await h.project('Other');
      // Three at once: the project's lock lets exactly two through.
      const answers = await Promise.all([create(a, 'one'), create(a, 'two'), create(a, 'three')]);
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 201, 409]);
      const refused = answers.find((r) => r.statusCode === 409)?.json();
      assert.equal(refused.code, 'SUBSCRIPTION_LIMIT_REACHED');
      assert.equal(
        refused.message,
        `Project ${projectId} has 2 event subscriptions, the most this deployment allows per project`,
      );
      const { rows } = await h.db.query(
        'SELECT count(*)::int AS n FROM event_notifier_subscriptions WHERE project_id = $1',
        [projectId],
      );
      assert.equal(rows[0]?.n, 2);
      assert.equal((await create(b, 'elsewhere')).statusCode, 201);
    } finally {
      await app.close();
    }
  });
});
