// The delivery pipeline, the same for both destinations: a batch's outcomes and its attempt log are written in one
// database transaction, so a batch whose log cannot be written records nothing (its messages are tried again), and
// a recorded outcome always has its logged attempt.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverDue } from '#api/eventNotifier/delivery/delivery.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { deliverEndpoint } from '#api/webhooks/delivery/deliverEndpoint.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { transferSubscription } from '../helpers/eventNotifier.ts';

const settings = { ...defaultEventNotifierSettings('test'), ...defaultDeliverySettings('loopback') };

describe('delivery pipeline: outcome and attempt log together', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let headers: Record<string, string>;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    receiver = await startReceiver();
    const created = await h.project('Pipeline');
    projectId = created.project.id;
    headers = apiKey(created.apiKey);
    await h.db.query(
      `CREATE FUNCTION refuse_attempt_log() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'the attempt log refuses writes'; END $$`,
    );
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  /** Runs `fn` while every write to the attempt log fails. */
  const withLogRefused = async (fn: () => Promise<unknown>) => {
    await h.db.query(
      'CREATE TRIGGER refuse BEFORE INSERT ON webhook_attempts FOR EACH STATEMENT EXECUTE FUNCTION refuse_attempt_log()',
    );
    try {
      await assert.rejects(fn(), /the attempt log refuses writes/);
    } finally {
      await h.db.query('DROP TRIGGER refuse ON webhook_attempts');
    }
  };
  const attempts = async () => (await h.db.query('SELECT 1 FROM webhook_attempts')).rows.length;

  it('a subscription’s webhook: the record is notified only with its logged attempt', async () => {
    const created = await h.call('create-subscription', {
      headers,
      body: { ...transferSubscription('0x5fbdb2315678afecb367f032d93f642f64180aa3'), webhookURL: receiver.url },
    });
    const subscriptionId = created.body.eventNotifierSubscription.id as string;
    const { rows } = await h.db.query<{ id: string }>(
      `INSERT INTO event_notifier_records (subscription_id, block_timestamp, transaction_hash, block_number, block_hash,
                                           transaction_index, log_index, decoded_log, next_attempt_at)
       VALUES ($1, now(), $2, 1, $2, 0, 0, '{}', now()) RETURNING id`,
      [subscriptionId, `0x${'1'.padStart(64, '0')}`],
    );
    const recordId = rows[0]?.id as string;
    const deliver = () =>
      deliverDue({ db: h.db, masterKey: h.masterKey, settings, queue: async () => {} }, subscriptionId);
    const before = await attempts();
    await withLogRefused(deliver);
    assert.equal(receiver.deliveries.length, 1, 'the attempt was made');
    const status = async () =>
      (await h.db.query<{ status: string }>('SELECT status FROM event_notifier_records WHERE id = $1', [recordId]))
        .rows[0]?.status;
    assert.equal(await status(), 'scanned', 'its outcome went with the attempt log');
    assert.equal(await attempts(), before);

    // Its claim ended: the next run sends it again, and records both.
    await h.db.query('UPDATE event_notifier_records SET next_attempt_at = now() WHERE id = $1', [recordId]);
    assert.equal((await deliver()).notified, 1);
    assert.equal(await status(), 'notified');
    assert.equal(await attempts(), before + 1);
  });

  it('an endpoint: the delivery is delivered only with its logged attempt', async () => {
    const endpoint = (
      await h.call('create-webhook-endpoint', {
        headers,
        body: { url: receiver.url, eventTypes: ['endpoint.disabled'] },
      })
    ).body.webhookEndpoint;
    await h.db.query(
      `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', '{}'::jsonb)))`,
      [projectId],
    );
    const deliver = () =>
      deliverEndpoint({ db: h.db, masterKey: h.masterKey, settings, queue: async () => {} }, endpoint.id);
    const sent = receiver.deliveries.length;
    const before = await attempts();
    await withLogRefused(deliver);
    assert.equal(receiver.deliveries.length, sent + 1, 'the attempt was made');
    const delivery = async () =>
      (
        await h.db.query<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1',
          [endpoint.id],
        )
      ).rows[0];
    assert.deepEqual(await delivery(), { status: 'pending', attempts: 0 }, 'its outcome went with the attempt log');
    assert.equal(await attempts(), before);

    await h.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1', [endpoint.id]);
    assert.equal((await deliver()).delivered, 1);
    assert.deepEqual(await delivery(), { status: 'delivered', attempts: 1 });
    assert.equal(await attempts(), before + 1);
  });
});
