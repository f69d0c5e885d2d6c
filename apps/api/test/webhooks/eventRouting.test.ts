// The event notifier's records routed to project endpoints, filtered by subscription: the trigger on records
// writes a message for each endpoint that takes the type and the subscription, in the records' own transaction.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { Webhook } from 'standardwebhooks';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverEndpoint } from '#api/webhooks/delivery/deliverEndpoint.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { transferSubscription } from '../helpers/eventNotifier.ts';

describe('event notifier events to webhook endpoints', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    h = await createHarness();
    receiver = await startReceiver();
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('an endpoint filtered to one subscription gets only its events, as the subscription’s webhook has them', async () => {
    const { apiKey: key } = await h.project('Routing');
    const headers = apiKey(key);
    const subscribe = async (name: string) =>
      (
        await h.call('create-subscription', {
          headers,
          body: { ...transferSubscription('0x5fbdb2315678afecb367f032d93f642f64180aa3'), subscriptionName: name },
        })
      ).body.eventNotifierSubscription.id as string;
    const wanted = await subscribe('Wanted');
    const other = await subscribe('Other');
    const endpoint = (
      await h.call('create-webhook-endpoint', {
        headers,
        body: { url: receiver.url, eventTypes: ['event_notifier.event'], subscriptionIds: [wanted] },
      })
    ).body.webhookEndpoint;

    const client = await h.db.pool.connect();
    try {
      // Rolled back with its records: no message.
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO event_notifier_records (subscription_id, block_timestamp, transaction_hash, block_number,
                                             block_hash, transaction_index, log_index, decoded_log)
         SELECT s, now(), '0x' || repeat('a', 64), 7, '0x' || repeat('b', 64), 0, 0, '{"value":"1"}'
           FROM unnest($1::uuid[]) AS s`,
        [[wanted, other]],
      );
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    const none = await h.db.query('SELECT count(*)::int AS n FROM webhook_messages');
    assert.equal(none.rows[0]?.n, 0);

    await h.db.query(
      `INSERT INTO event_notifier_records (subscription_id, block_timestamp, transaction_hash, block_number,
                                           block_hash, transaction_index, log_index, decoded_log)
       SELECT s, now(), '0x' || repeat('a', 64), 7, '0x' || repeat('b', 64), 0, 0, '{"value":"1"}'
         FROM unnest($1::uuid[]) AS s`,
      [[wanted, other]],
    );
    const messages = await h.db.query<{ subscription_id: string }>('SELECT subscription_id FROM webhook_messages');
    assert.deepEqual(
      messages.rows.map((r) => r.subscription_id),
      [wanted],
    );
    await deliverEndpoint(
      { db: h.db, masterKey: h.masterKey, settings: defaultDeliverySettings('loopback'), queue: async () => {} },
      endpoint.id,
    );
    assert.equal(receiver.deliveries.length, 1);
    const delivery = receiver.deliveries[0];
    const payload = new Webhook(endpoint.secret).verify(delivery?.body as string, delivery?.headers ?? {}) as {
      type: string;
      data: { subscription: { id: string }; decodedLog: unknown; recordId: string };
    };
    assert.equal(payload.type, 'event_notifier.event');
    assert.equal(payload.data.subscription.id, wanted);
    assert.deepEqual(payload.data.decodedLog, { value: '1' });
    h.validator.assertWebhook(payload);
    const record = await h.db.query('SELECT id FROM event_notifier_records WHERE subscription_id = $1', [wanted]);
    assert.equal(payload.data.recordId, record.rows[0]?.id);
  });
});
