// Auto-disable: an endpoint, or a subscription's own webhook, whose every attempt has failed for
// WEBHOOK_DISABLE_AFTER_HOURS is disabled with its reason and time, the project's endpoints that take its notice
// (endpoint.disabled for an endpoint, subscription.webhook_disabled for a subscription) are told, messages waiting or created meanwhile are kept failed, and a replay (or resend) after
// re-enabling sends them. The clock is the failure streak, moved back here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { deployEmitter } from '@mountain/testkit/eventEmitter.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { eventually, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { type AnyWebhookEvent, verify } from '@mountain/webhook-sdk';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverEndpoint } from '#api/webhooks/delivery/deliverEndpoint.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { FAST_SETTINGS, startTestWorker, transferSubscription } from '../helpers/eventNotifier.ts';

describe('auto-disable after sustained failure', () => {
  let h: Harness;
  let failing: Awaited<ReturnType<typeof startReceiver>>;
  let watcher: Awaited<ReturnType<typeof startReceiver>>;
  let headers: Record<string, string>;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    failing = await startReceiver(() => ({ status: 500 }));
    watcher = await startReceiver();
    const created = await h.project('Disable');
    projectId = created.project.id;
    headers = apiKey(created.apiKey);
  });
  after(async () => {
    await h?.close();
    await failing?.close();
    await watcher?.close();
  });

  const settings = { ...defaultDeliverySettings('loopback'), webhookDisableAfterHours: 120 };
  const deliver = (id: string) =>
    deliverEndpoint({ db: h.db, masterKey: h.masterKey, settings, queue: async () => {} }, id);
  const message = () =>
    h.db.query(
      `SELECT webhook_write_message($1, 'transaction.succeeded', NULL,
                jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', '{}'::jsonb)))`,
      [projectId],
    );
  const endpointOf = async (id: string) =>
    (await h.call('get-webhook-endpoints', { headers })).body.webhookEndpoints.find((e: { id: string }) => e.id === id);

  it('disables the endpoint, says why and when, tells the others, keeps what came meanwhile for a replay', async () => {
    const create = (url: string, eventTypes: string[]) =>
      h.call('create-webhook-endpoint', { headers, body: { url, eventTypes } });
    const bad = (await create(failing.url, ['transaction.succeeded'])).body.webhookEndpoint;
    const told = (await create(watcher.url, ['endpoint.disabled'])).body.webhookEndpoint;

    await message();
    assert.equal((await deliver(bad.id)).disabled, false);
    const streak = await endpointOf(bad.id);
    assert.ok(streak.failingSince, 'the failure streak starts with the first failed attempt');
    assert.equal(streak.enabled, true);

    // 121 hours later (the streak moved back), the next failed attempt disables it.
    await h.db.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '121 hours' WHERE id = $1`, [
      bad.id,
    ]);
    await h.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [bad.id]);
    assert.equal((await deliver(bad.id)).disabled, true);
    const disabled = await endpointOf(bad.id);
    assert.equal(disabled.enabled, false);
    assert.match(disabled.disabledReason, /^Every attempt failed for 120 hours, since \d{4}-\d\d-\d\dT/);
    assert.ok(Date.parse(disabled.disabledAt) <= Date.now());

    await deliver(told.id);
    assert.equal(watcher.deliveries.length, 1);
    const notice = JSON.parse(watcher.deliveries[0]?.body as string);
    assert.equal(notice.type, 'endpoint.disabled');
    assert.equal(notice.data.endpoint.id, bad.id);
    assert.equal(notice.data.endpoint.disabledReason, disabled.disabledReason);
    h.validator.assertWebhook(notice);

    // Disabled: a new message is kept, failed, and nothing is sent.
    const sentBefore = failing.deliveries.length;
    await message();
    assert.equal((await deliver(bad.id)).delivered, 0);
    assert.equal(failing.deliveries.length, sentBefore);
    const kept = await h.call('get-webhook-messages', { headers, query: { endpointId: bad.id, status: 'failed' } });
    assert.equal(kept.body.webhookMessages.length, 2, 'the failed one and the one created while disabled');

    // Enabled again (the reason cleared) and replayed: everything reaches the receiver, now up.
    failing.respondWith(() => ({ status: 200 }));
    const enabled = await h.call('update-webhook-endpoint', { headers, body: { id: bad.id, enabled: true } });
    assert.equal(enabled.body.webhookEndpoint.disabledReason, null);
    assert.equal(enabled.body.webhookEndpoint.failingSince, null);
    const replayed = await h.call('replay-webhook-messages', {
      headers,
      body: { endpointId: bad.id, since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    assert.equal(replayed.body.queuedCount, 2);
    await h.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [bad.id]);
    assert.equal((await deliver(bad.id)).delivered, 2);
    assert.equal((await endpointOf(bad.id)).failingSince, null, 'a delivered attempt ends the streak');
  });

  it('a streak shorter than the limit, or broken by one success, disables nothing', async () => {
    let answer = 500;
    const flaky = await startReceiver(() => ({ status: answer }));
    try {
      const endpoint = (
        await h.call('create-webhook-endpoint', {
          headers,
          body: { url: flaky.url, eventTypes: ['transaction.succeeded'] },
        })
      ).body.webhookEndpoint;
      await message();
      await deliver(endpoint.id);
      await h.db.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '119 hours' WHERE id = $1`, [
        endpoint.id,
      ]);
      await h.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [endpoint.id]);
      assert.equal((await deliver(endpoint.id)).disabled, false, '119 hours is not 120');
      answer = 200;
      await h.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [endpoint.id]);
      await deliver(endpoint.id);
      assert.equal((await endpointOf(endpoint.id)).failingSince, null);
      assert.equal((await endpointOf(endpoint.id)).enabled, true);
    } finally {
      await flaky.close();
    }
  });
});

describe('auto-disable of a subscription’s own webhook', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let failing: Awaited<ReturnType<typeof startReceiver>>;
  let watcher: Awaited<ReturnType<typeof startReceiver>>;
  let headers: Record<string, string>;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    h.deps.eventNotifier = FAST_SETTINGS;
    h.deps.delivery = FAST_SETTINGS;
    failing = await startReceiver(() => ({ status: 500 }));
    watcher = await startReceiver();
    headers = apiKey((await h.project('Disable a subscription’s webhook')).apiKey);
    worker = await startTestWorker(h);
  });
  after(async () => {
    await worker?.stop();
    await h?.close();
    await failing?.close();
    await watcher?.close();
    await anvil?.stop();
  });

  const subscriptionOf = async (id: string) =>
    (await h.call('get-subscriptions', { headers })).body.eventNotifierSubscriptions.find(
      (s: { id: string }) => s.id === id,
    );
  const recordsOf = async (subscriptionId: string) =>
    (await h.call('get-records', { headers, body: { subscriptionId } })).body.eventNotifierRecords as {
      status: string;
    }[];

  it('disables it, says why and when, fails what waits, tells the endpoints; enabling clears it, a resend delivers', async () => {
    const told = await h.call('create-webhook-endpoint', {
      headers,
      body: { url: watcher.url, eventTypes: ['subscription.webhook_disabled'] },
    });
    assert.equal(told.status, 201, JSON.stringify(told.body));
    // An endpoint taking only endpoint.disabled is not told of a subscription's webhook.
    const endpointsOnly = await h.call('create-webhook-endpoint', {
      headers,
      body: { url: watcher.url, eventTypes: ['endpoint.disabled'] },
    });
    assert.equal(endpointsOnly.status, 201, JSON.stringify(endpointsOnly.body));
    const emitter = await deployEmitter(anvil.url);
    await emitter.emitTransfer(1n);
    const created = await h.call('create-subscription', {
      headers,
      body: { ...transferSubscription(emitter.address), webhookURL: failing.url, webhookMaxRetries: 20 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.eventNotifierSubscription.id as string;

    const streak = await eventually(async () => {
      const s = await subscriptionOf(id);
      return s.webhookFailingSince ? s : undefined;
    });
    assert.equal(streak.webhookEnabled, true, 'a failure streak alone disables nothing');
    assert.equal(streak.webhookDisabledReason, null);

    // 121 hours later (the streak moved back), the next failed attempt disables the webhook.
    await h.db.query(
      `UPDATE event_notifier_subscriptions SET webhook_failing_since = now() - interval '121 hours' WHERE id = $1`,
      [id],
    );
    const disabled = await eventually(async () => {
      const s = await subscriptionOf(id);
      return s.webhookEnabled ? undefined : s;
    });
    assert.match(disabled.webhookDisabledReason, /^Every attempt failed for 120 hours, since \d{4}-\d\d-\d\dT/);
    assert.ok(Date.parse(disabled.webhookDisabledAt) <= Date.now());
    assert.deepEqual(
      (await recordsOf(id)).map((r) => r.status),
      ['failed'],
      'the record that waited for a retry is kept, failed',
    );

    await watcher.waitFor(() => watcher.deliveries.length === 1, 20_000, 'the subscription.webhook_disabled notice');
    const delivery = watcher.deliveries[0] as (typeof watcher.deliveries)[number];
    const notice = await verify<AnyWebhookEvent>(delivery.body, delivery.headers, told.body.webhookEndpoint.secret);
    h.validator.assertWebhook(notice);
    assert.equal(notice.type, 'subscription.webhook_disabled');
    const { rows: messages } = await h.db.query<{ event_type: string }>(
      'SELECT event_type FROM webhook_messages WHERE project_id = $1',
      [created.body.eventNotifierSubscription.projectId],
    );
    assert.deepEqual(
      messages.map((m) => m.event_type),
      ['subscription.webhook_disabled'],
      'one message, of its own type: none for the endpoints taking endpoint.disabled',
    );
    assert.deepEqual(notice.data, {
      subscription: {
        id,
        webhookURL: failing.url,
        disabledReason: disabled.webhookDisabledReason,
        disabledAt: disabled.webhookDisabledAt,
        failingSince: disabled.webhookFailingSince,
      },
    });

    // Enabled again: the reason and the streak are cleared; the failed record is sent by a resend, now received.
    failing.respondWith(() => ({ status: 200 }));
    const enabled = await h.call('update-subscription-webhook', { headers, body: { id, webhookEnabled: true } });
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    const view = enabled.body.eventNotifierSubscription;
    assert.deepEqual(
      [view.webhookEnabled, view.webhookDisabledReason, view.webhookDisabledAt, view.webhookFailingSince],
      [true, null, null, null],
    );
    const resent = await h.call('resend-failed-webhook', { headers, body: { subscriptionId: id } });
    assert.equal(resent.status, 200, JSON.stringify(resent.body));
    await eventually(async () => ((await recordsOf(id)).every((r) => r.status === 'notified') ? true : undefined));
    assert.equal((await subscriptionOf(id)).webhookFailingSince, null, 'a delivered attempt ends the streak');
  });
});
