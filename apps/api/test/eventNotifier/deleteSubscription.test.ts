// delete-subscription with deliveries pending (its own webhook and an endpoint's, both refusing and retrying every
// 100 ms): nothing of it is sent after the answer, it is gone from every answer, it frees a place under the limit,
// and the other subscription of the project goes on. With the role matrix and bad input.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { deployEmitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { buildApp } from '#api/app.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('delete-subscription', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let key: string;
  let projectId: number;
  let emitter: Awaited<ReturnType<typeof deployEmitter>>;
  let own: Receiver;
  let endpoint: Receiver;
  let kept: Receiver;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({
      rpcUrls: { 1337: anvil.url },
      worker: true,
      delivery: { ...defaultDeliverySettings('loopback'), webhookBackoffBaseMs: 100, webhookBackoffMaxMs: 200 },
    });
    ({
      apiKey: key,
      project: { id: projectId },
    } = await h.project('Deleting'));
    emitter = await deployEmitter(anvil.url);
    await emitter.emitMany(5, 0);
    own = await startReceiver(() => ({ status: 503 }));
    endpoint = await startReceiver(() => ({ status: 503 }));
    kept = await startReceiver();
  });
  after(async () => {
    await own?.close();
    await endpoint?.close();
    await kept?.close();
    await h?.close();
    await anvil?.stop();
  });

  const call = (operation: string, body?: unknown, query?: Record<string, string>) =>
    h.call(operation, { headers: apiKey(key), ...(body ? { body } : {}), ...(query ? { query } : {}) });
  const subscribe = async (name: string, webhookURL: string) => {
    const res = await call('create-subscription', {
      subscriptionName: name,
      networkId: 1337,
      address: emitter.address,
      formattedAbiEvent: TRANSFER_EVENT,
      initialBlockNumber: 0,
      scanInterval: 5,
      webhookURL,
      webhookMaxRetries: 20,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.eventNotifierSubscription.id as string;
  };
  const count = async (sql: string, params: unknown[]) =>
    (await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]?.n;

  it('stops every delivery of it at the answer, while they retry, and takes it out of every answer', async () => {
    const created = await call('create-webhook-endpoint', {
      url: endpoint.url,
      eventTypes: ['event_notifier.event'],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const gone = await subscribe('to delete', own.url);
    const stays = await subscribe('to keep', kept.url);
    // Both receivers refuse, and the worker keeps trying each record every 100–200 ms.
    await waitFor(
      async () => (own.deliveries.length >= 10 && endpoint.deliveries.length >= 10 ? true : undefined),
      30_000,
    );

    const res = await call('delete-subscription', { id: gone });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { message: `Subscription ${gone} is deleted` });
    const ownAtAnswer = own.deliveries.length;
    const endpointAtAnswer = endpoint.deliveries.filter((d) => d.body.includes(gone)).length;
    // Ten retry intervals later: nothing more of it reached either receiver.
    await sleep(2_000);
    assert.equal(own.deliveries.length, ownAtAnswer, 'its own webhook got nothing after the answer');
    assert.equal(
      endpoint.deliveries.filter((d) => d.body.includes(gone)).length,
      endpointAtAnswer,
      'the endpoint got none of its records after the answer',
    );

    const listed = await call('get-subscriptions', undefined, { perPage: '100' });
    assert.deepEqual(
      (listed.body.eventNotifierSubscriptions as { id: string }[]).map((s) => s.id),
      [stays],
    );
    const records = await call('get-records', { subscriptionId: gone });
    assert.equal(records.status, 404);
    const attempts = await call('get-webhook-attempts', undefined, { subscriptionId: gone });
    assert.deepEqual(attempts.body.webhookAttempts, []);
    assert.equal(await count('event_notifier_records WHERE subscription_id = $1', [gone]), 0);
    assert.equal(await count('webhook_messages WHERE subscription_id = $1', [gone]), 0);
    assert.equal(await count('webhook_attempts WHERE subscription_id = $1', [gone]), 0);
    // The endpoint's attempts of its records went with them; its attempts of the other subscription's stay.
    const endpointAttempts = await call('get-webhook-attempts', undefined, { eventType: 'event_notifier.event' });
    assert.ok(
      (endpointAttempts.body.webhookAttempts as { subscriptionId: string | null; webhookId: string }[]).every(
        (a) => a.subscriptionId !== gone,
      ),
    );

    // The other subscription of the project goes on: its receiver has every record, once each.
    await waitFor(async () =>
      new Set(kept.deliveries.map((d) => d.headers['webhook-id'])).size >= 5 ? true : undefined,
    );
    const again = await call('delete-subscription', { id: gone });
    assert.equal(again.status, 404, 'deleted once');
  });

  it('frees a place under MAX_SUBSCRIPTIONS_PER_PROJECT', async () => {
    const app = buildApp({
      ...h.deps,
      eventNotifier: { ...defaultEventNotifierSettings('test'), maxSubscriptionsPerProject: 1 },
    });
    try {
      const { apiKey: k } = await h.project('Limited');
      const post = (operation: string, payload: Record<string, unknown>) =>
        app.inject({ method: 'POST', url: `/public-api/v3/event-notifier/${operation}`, headers: apiKey(k), payload });
      const body = {
        subscriptionName: 'one',
        networkId: 1337,
        address: emitter.address,
        formattedAbiEvent: TRANSFER_EVENT,
        initialBlockNumber: 0,
        scanInterval: 5,
      };
      const first = await post('create-subscription', body);
      assert.equal(first.statusCode, 201);
      const refused = await post('create-subscription', body);
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().code, 'SUBSCRIPTION_LIMIT_REACHED');
      const deleted = await post('delete-subscription', { id: first.json().eventNotifierSubscription.id });
      assert.equal(deleted.statusCode, 200);
      assert.equal((await post('create-subscription', body)).statusCode, 201, 'the place it held is free');
    } finally {
      await app.close();
    }
  });

  it('is for admins and editors of the project, and names a bad id', async () => {
    const id = await subscribe('roles', kept.url);
    const reader = await h.member(projectId, 'reader');
    const asReader = await h.call('delete-subscription', { headers: bearer(reader.token), body: { id } });
    assert.equal(asReader.status, 403);
    const other = await h.project('Other');
    const fromOther = await h.call('delete-subscription', { headers: apiKey(other.apiKey), body: { id } });
    assert.equal(fromOther.status, 404, 'another project’s subscription is not found');
    const bad = await call('delete-subscription', { id: 'not-a-uuid' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /body\.id/);
    const editor = await h.member(projectId, 'editor');
    const asEditor = await h.call('delete-subscription', { headers: bearer(editor.token), body: { id } });
    assert.equal(asEditor.status, 200);
  });
});
