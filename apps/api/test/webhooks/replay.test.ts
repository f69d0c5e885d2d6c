// Replay: a receiver down until every retry has failed, then up again; a replay of the window delivers every
// message with its original webhook-id, once, spaced at the replay rate; asking twice queues nothing more.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverEndpoint, ENDPOINT_MAX_RETRIES } from '#api/webhooks/delivery/deliverEndpoint.ts';
import { REPLAY_PER_SECOND } from '#api/webhooks/replay/replayMessages.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

describe('replay of webhook messages', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let headers: Record<string, string>;
  let endpointId: string;
  let messageIds: string[];

  before(async () => {
    h = await createHarness();
    receiver = await startReceiver(() => ({ status: 503 }));
    const created = await h.project('Replay');
    headers = apiKey(created.apiKey);
    const endpoint = await h.call('create-webhook-endpoint', {
      headers,
      body: { url: receiver.url, eventTypes: ['endpoint.disabled'] },
    });
    endpointId = endpoint.body.webhookEndpoint.id;
    for (let i = 0; i < 3; i++) {
      await h.db.query(
        `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                  jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $2::jsonb)))`,
        [created.project.id, JSON.stringify({ endpoint: { id: endpointId, n: i } })],
      );
    }
    const { rows } = await h.db.query<{ id: string }>('SELECT id FROM webhook_messages WHERE project_id = $1', [
      created.project.id,
    ]);
    messageIds = rows.map((r) => r.id).sort();
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  const settings = { ...defaultDeliverySettings('loopback'), webhookBackoffBaseMs: 60_000 };
  const deliver = () =>
    deliverEndpoint({ db: h.db, masterKey: h.masterKey, settings, queue: async () => {} }, endpointId);
  const dueNow = () =>
    h.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1 AND status = 'pending'`, [
      endpointId,
    ]);
  const replay = (body: object) => h.call('replay-webhook-messages', { headers, body: { endpointId, ...body } });

  it('a receiver down through every retry, then up: the replay delivers each message once, original webhook-id', async () => {
    for (let attempt = 0; attempt <= ENDPOINT_MAX_RETRIES; attempt++) {
      await deliver();
      await dueNow();
    }
    const { rows } = await h.db.query('SELECT status FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['failed', 'failed', 'failed'],
    );
    const failedAttempts = receiver.deliveries.length;
    assert.equal(failedAttempts, 3 * (ENDPOINT_MAX_RETRIES + 1));

    receiver.respondWith(() => ({ status: 200 }));
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const first = await replay({ since });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, { queuedCount: 3 });
    assert.deepEqual((await replay({ since })).body, { queuedCount: 0 }, 'asking twice does not double them');

    // Spaced at the replay rate.
    const due = await h.db.query<{ at: Date }>(
      'SELECT next_attempt_at AS at FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY next_attempt_at',
      [endpointId],
    );
    const spread = (due.rows[2]?.at.getTime() ?? 0) - (due.rows[0]?.at.getTime() ?? 0);
    assert.ok(spread >= (2 * 1000) / REPLAY_PER_SECOND - 1, `spaced (${spread} ms)`);

    await h.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [endpointId]);
    assert.equal((await deliver()).delivered, 3);
    const replayed = receiver.deliveries.slice(failedAttempts);
    assert.deepEqual(replayed.map((d) => d.headers['webhook-id']).sort(), messageIds, 'each once, its original id');
    assert.deepEqual((await replay({ since })).body, { queuedCount: 0 }, 'nothing failed is left');
    assert.deepEqual((await replay({ since, onlyFailed: false })).body, { queuedCount: 3 }, 'delivered ones on demand');
  });

  it('an empty window queues nothing; bad input is a 400 naming the field; another project’s is a 404', async () => {
    assert.deepEqual((await replay({ since: '2099-01-01T00:00:00Z' })).body, { queuedCount: 0 });
    const noSince = await h.call('replay-webhook-messages', { headers, body: { endpointId } });
    assert.equal(noSince.status, 400);
    assert.equal(noSince.body.details[0].field, 'body.since');
    const noTarget = await h.call('replay-webhook-messages', { headers, body: { since: '2026-01-01T00:00:00Z' } });
    assert.equal(noTarget.status, 400);
    assert.equal(noTarget.body.details[0].field, 'body.endpointId');
    const other = await h.project('Other');
    const foreign = await h.call('replay-webhook-messages', {
      headers: apiKey(other.apiKey),
      body: { endpointId, since: '2026-01-01T00:00:00Z' },
    });
    assert.equal(foreign.status, 404);
  });
});
