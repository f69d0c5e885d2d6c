// Secret rotation with a grace period, for an endpoint and for a subscription's webhookSecret: through the grace
// period every webhook carries both signatures, so a receiver knowing only the old secret and one knowing only the
// new one both verify (with the reference standardwebhooks package); after it, only the new secret signs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Delivery, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { verify } from '@mountain/webhook-sdk';
import { Webhook } from 'standardwebhooks';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverDue } from '#api/eventNotifier/delivery/delivery.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { deliverEndpoint } from '#api/webhooks/delivery/deliverEndpoint.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { transferSubscription } from '../helpers/eventNotifier.ts';

const settings = { ...defaultEventNotifierSettings('test'), ...defaultDeliverySettings('loopback') };
const accepts = (secret: string, d: Delivery) => {
  try {
    new Webhook(secret).verify(d.body, d.headers);
    return true;
  } catch {
    return false;
  }
};

describe('secret rotation with a grace period', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let headers: Record<string, string>;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    receiver = await startReceiver();
    const created = await h.project('Rotation');
    projectId = created.project.id;
    headers = apiKey(created.apiKey);
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('an endpoint: old-only and new-only receivers both verify through the grace period, then only the new', async () => {
    const endpoint = (
      await h.call('create-webhook-endpoint', {
        headers,
        body: { url: receiver.url, eventTypes: ['endpoint.disabled'] },
      })
    ).body.webhookEndpoint;
    const oldSecret: string = endpoint.secret;
    const rotated = await h.call('rotate-webhook-endpoint-secret', { headers, body: { id: endpoint.id } });
    const newSecret: string = rotated.body.webhookEndpoint.secret;
    const send = async () => {
      await h.db.query(
        `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                  jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', '{}'::jsonb)))`,
        [projectId],
      );
      const before = receiver.deliveries.length;
      await deliverEndpoint({ db: h.db, masterKey: h.masterKey, settings, queue: async () => {} }, endpoint.id);
      assert.equal(receiver.deliveries.length, before + 1);
      return receiver.deliveries.at(-1) as Delivery;
    };
    const during = await send();
    assert.equal(during.headers['webhook-signature']?.split(' ').length, 2);
    assert.ok(accepts(oldSecret, during), 'a receiver knowing only the old secret');
    assert.ok(accepts(newSecret, during), 'a receiver knowing only the new secret');
    assert.ok(await verify(during.body, during.headers, [newSecret, oldSecret]), 'the SDK with both');

    await h.db.query(
      `UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
      [endpoint.id],
    );
    const afterGrace = await send();
    assert.equal(afterGrace.headers['webhook-signature']?.split(' ').length, 1);
    assert.ok(!accepts(oldSecret, afterGrace), 'the old secret no longer signs');
    assert.ok(accepts(newSecret, afterGrace));
  });

  it('a subscription’s webhookSecret: the same, and a grace period of 0 stops the old secret at once', async () => {
    const created = await h.call('create-subscription', {
      headers,
      body: { ...transferSubscription('0x5fbdb2315678afecb367f032d93f642f64180aa3'), webhookURL: receiver.url },
    });
    const subscription = created.body.eventNotifierSubscription;
    const oldSecret: string = subscription.webhookSecret;
    const rotated = await h.call('rotate-subscription-webhook-secret', { headers, body: { id: subscription.id } });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const newSecret: string = rotated.body.eventNotifierSubscription.webhookSecret;
    assert.notEqual(newSecret, oldSecret);
    assert.ok(Date.parse(rotated.body.previousWebhookSecretExpiresAt) > Date.now() + 86_000_000);
    let n = 0;
    const send = async () => {
      await h.db.query(
        `INSERT INTO event_notifier_records (subscription_id, block_timestamp, transaction_hash, block_number, block_hash,
                                             transaction_index, log_index, decoded_log, next_attempt_at)
         VALUES ($1, now(), $2, $3, $2, 0, 0, '{}', now())`,
        [subscription.id, `0x${String(++n).padStart(64, '0')}`, n],
      );
      const before = receiver.deliveries.length;
      await deliverDue({ db: h.db, masterKey: h.masterKey, settings, queue: async () => {} }, subscription.id);
      assert.equal(receiver.deliveries.length, before + 1);
      return receiver.deliveries.at(-1) as Delivery;
    };
    const during = await send();
    assert.ok(accepts(oldSecret, during), 'a receiver knowing only the old secret');
    assert.ok(accepts(newSecret, during), 'a receiver knowing only the new secret');

    const now = await h.call('rotate-subscription-webhook-secret', {
      headers,
      body: { id: subscription.id, gracePeriodSeconds: 0 },
    });
    assert.equal(now.body.previousWebhookSecretExpiresAt, null);
    const latest: string = now.body.eventNotifierSubscription.webhookSecret;
    const afterLeak = await send();
    assert.ok(!accepts(newSecret, afterLeak), 'the rotated-away secret stops at once');
    assert.ok(accepts(latest, afterLeak));
    const listed = await h.call('get-subscriptions', { headers });
    const masked = listed.body.eventNotifierSubscriptions.find((s: { id: string }) => s.id === subscription.id);
    assert.equal(masked.webhookSecret, `${latest.slice(0, 10)}${'*'.repeat(16)}`);
  });
});
