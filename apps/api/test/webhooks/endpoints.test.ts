import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '#api/app.ts';
import { open } from '#api/crypto/secretBox.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { endpointSecretContext } from '#api/webhooks/endpoints/endpointRows.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';
import { transferSubscription } from '../helpers/eventNotifier.ts';

const URL_A = 'https://example.com/hooks/orders';

describe('webhook endpoints', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    const created = await h.project('Endpoints');
    key = created.apiKey;
    projectId = created.project.id;
    otherKey = (await h.project('Someone else')).apiKey;
  });
  after(() => h.close());

  const call = (operationId: string, body?: object, k = key) =>
    h.call(operationId, { headers: apiKey(k), ...(body ? { body } : {}) });
  const create = (body: object, k = key) => call('create-webhook-endpoint', body, k);

  it('creates an endpoint: 201, the full secret once, encrypted at rest, masked in the list', async () => {
    const res = await create({ url: URL_A, eventTypes: ['transaction.succeeded', 'transaction.succeeded'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const e = res.body.webhookEndpoint;
    assert.match(e.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(e.projectId, projectId);
    assert.deepEqual(e.eventTypes, ['transaction.succeeded'], 'a repeated type is kept once');
    assert.equal(e.enabled, true);
    assert.equal(e.subscriptionIds, null);
    assert.equal(e.description, '');
    assert.equal(e.previousSecretExpiresAt, null);

    const { rows } = await h.db.query<{ secret: Buffer }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [e.id]);
    const stored = rows[0]?.secret as Buffer;
    assert.ok(!stored.toString('latin1').includes(e.secret.slice(6)), 'the secret is not stored in plain text');
    assert.equal(open(h.masterKey, stored, endpointSecretContext(e.id)), e.secret);

    const list = await call('get-webhook-endpoints');
    assert.equal(list.status, 200);
    const listed = list.body.webhookEndpoints.find((x: { id: string }) => x.id === e.id);
    assert.equal(listed.secret, `${e.secret.slice(0, 10)}${'*'.repeat(16)}`);
    const other = await call('get-webhook-endpoints', undefined, otherKey);
    assert.deepEqual(other.body.webhookEndpoints, []);
  });

  it('updates only the fields sent; an empty subscriptionIds takes every subscription again', async () => {
    const sub = await h.call('create-subscription', {
      headers: apiKey(key),
      body: transferSubscription('0x5fbdb2315678afecb367f032d93f642f64180aa3'),
    });
    const subscriptionId = sub.body.eventNotifierSubscription.id;
    const e = (
      await create({
        url: URL_A,
        eventTypes: ['event_notifier.event'],
        subscriptionIds: [subscriptionId],
        description: 'Transfers',
      })
    ).body.webhookEndpoint;
    assert.deepEqual(e.subscriptionIds, [subscriptionId]);
    const changed = await call('update-webhook-endpoint', {
      id: e.id,
      url: 'https://example.com/other',
      enabled: false,
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.webhookEndpoint.url, 'https://example.com/other');
    assert.equal(changed.body.webhookEndpoint.enabled, false);
    assert.equal(changed.body.webhookEndpoint.description, 'Transfers');
    assert.deepEqual(changed.body.webhookEndpoint.subscriptionIds, [subscriptionId]);
    const cleared = await call('update-webhook-endpoint', { id: e.id, subscriptionIds: [] });
    assert.equal(cleared.body.webhookEndpoint.subscriptionIds, null);
    assert.ok(Date.parse(cleared.body.webhookEndpoint.updatedAt) >= Date.parse(e.updatedAt));
  });

  it('bad input: 400 naming the field', async () => {
    const cases: [object, string][] = [
      [{ url: 'ftp://example.com/x', eventTypes: ['transaction.succeeded'] }, 'body.url'],
      [{ url: URL_A, eventTypes: [] }, 'body.eventTypes'],
      [{ url: URL_A, eventTypes: ['transaction.mined'] }, 'body.eventTypes/0'],
      [{ url: URL_A }, 'body.eventTypes'],
      [{ url: URL_A, eventTypes: ['transaction.failed'], description: 'x'.repeat(513) }, 'body.description'],
      [{ url: URL_A, eventTypes: ['transaction.failed'], subscriptionIds: ['not-a-uuid'] }, 'body.subscriptionIds/0'],
      [{ url: URL_A, eventTypes: ['transaction.failed'], colour: 'red' }, 'body.colour'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.ok(
        res.body.details.some((d: { field: string }) =>
          d.field.replace(/\[(\d+)\]/g, '/$1').startsWith(field.replace(/\./g, '.')),
        ),
        `${JSON.stringify(res.body.details)} names ${field}`,
      );
    }
    // Another project's subscription is not one of this project's.
    const foreign = await h.call('create-subscription', {
      headers: apiKey(otherKey),
      body: transferSubscription('0x5fbdb2315678afecb367f032d93f642f64180aa3'),
    });
    const res = await create({
      url: URL_A,
      eventTypes: ['event_notifier.event'],
      subscriptionIds: [foreign.body.eventNotifierSubscription.id],
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.details, [
      { field: 'body.subscriptionIds[0]', message: 'is not a subscription of this project' },
    ]);
    const refused = await create({ url: 'http://127.0.0.1:22/hook', eventTypes: ['transaction.failed'] });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'WEBHOOK_URL_REFUSED');
    assert.equal(refused.body.details[0].field, 'body.url');
    const rotate = await call('rotate-webhook-endpoint-secret', {
      id: (await create({ url: URL_A, eventTypes: ['transaction.failed'] })).body.webhookEndpoint.id,
      gracePeriodSeconds: 8 * 86_400,
    });
    assert.equal(rotate.status, 400);
    assert.equal(rotate.body.details[0].field, 'body.gracePeriodSeconds');
  });

  it('rotation: a new secret in full, the previous one kept (encrypted) until the grace period ends', async () => {
    const e = (await create({ url: URL_A, eventTypes: ['transaction.failed'] })).body.webhookEndpoint;
    const res = await call('rotate-webhook-endpoint-secret', { id: e.id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rotated = res.body.webhookEndpoint;
    assert.notEqual(rotated.secret, e.secret);
    assert.match(rotated.secret, /^whsec_/);
    const grace = Date.parse(rotated.previousSecretExpiresAt) - Date.now();
    assert.ok(grace > 86_000_000 && grace <= 86_400_000, `24 hours by default (${grace} ms)`);
    const { rows } = await h.db.query<{ previous_secret: Buffer }>(
      'SELECT previous_secret FROM webhook_endpoints WHERE id = $1',
      [e.id],
    );
    assert.equal(open(h.masterKey, rows[0]?.previous_secret as Buffer, endpointSecretContext(e.id)), e.secret);
    const now = await call('rotate-webhook-endpoint-secret', { id: e.id, gracePeriodSeconds: 0 });
    assert.equal(now.body.webhookEndpoint.previousSecretExpiresAt, null, 'grace 0: the previous secret stops at once');
  });

  it('deletes an endpoint; another project’s endpoint is a 404 for every operation', async () => {
    const e = (await create({ url: URL_A, eventTypes: ['transaction.failed'] })).body.webhookEndpoint;
    for (const [op, body] of [
      ['update-webhook-endpoint', { id: e.id, enabled: false }],
      ['rotate-webhook-endpoint-secret', { id: e.id }],
      ['delete-webhook-endpoint', { id: e.id }],
    ] as const) {
      const res = await call(op, body, otherKey);
      assert.equal(res.status, 404, op);
      assert.equal(res.body.code, 'NOT_FOUND');
      assert.equal(res.body.message, `Webhook endpoint ${e.id} was not found`);
    }
    const deleted = await call('delete-webhook-endpoint', { id: e.id });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.message, `Webhook endpoint ${e.id} is deleted`);
    assert.equal((await call('delete-webhook-endpoint', { id: e.id })).status, 404);
  });

  it('a reader lists endpoints but cannot change them', async () => {
    const reader = await h.member(projectId, 'reader');
    const list = await h.call('get-webhook-endpoints', { headers: bearer(reader.token) });
    assert.equal(list.status, 200);
    const refused = await h.call('create-webhook-endpoint', {
      headers: bearer(reader.token),
      body: { url: URL_A, eventTypes: ['transaction.failed'] },
    });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body.requiredRoles, ['admin', 'editor']);
  });
});

describe('webhook endpoints per project', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it('past MAX_WEBHOOK_ENDPOINTS_PER_PROJECT: 409 WEBHOOK_ENDPOINT_LIMIT_REACHED, nothing written', async () => {
    const app = buildApp({
      ...h.deps,
      delivery: { ...defaultDeliverySettings('loopback'), maxWebhookEndpointsPerProject: 2 },
    });
    const create = (k: string) =>
      app.inject({
        method: 'POST',
        url: '/public-api/v3/webhook/create-webhook-endpoint',
        headers: apiKey(k),
        payload: { url: URL_A, eventTypes: ['transaction.failed'] },
      });
    try {
      const { apiKey: a, project } = await h.project('Full');
      const { apiKey: b } = await h.project('Other');
      const answers = await Promise.all([create(a), create(a), create(a)]);
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 201, 409]);
      const refused = answers.find((r) => r.statusCode === 409)?.json();
      assert.equal(refused.code, 'WEBHOOK_ENDPOINT_LIMIT_REACHED');
      assert.equal(
        refused.message,
        `Project ${project.id} has 2 webhook endpoints, the most this deployment allows per project`,
      );
      assert.equal((await create(b)).statusCode, 201);
    } finally {
      await app.close();
    }
  });
});
