// A project's endpoints are delivered by one job of the project, side by side: a message to many endpoints queues
// one job, and an endpoint that never answers does not hold back the others.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverProject } from '#api/webhooks/delivery/deliverProject.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

describe('delivery by project', () => {
  let h: Harness;
  let healthy: Awaited<ReturnType<typeof startReceiver>>;
  let hanging: Awaited<ReturnType<typeof startReceiver>>;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    healthy = await startReceiver();
    hanging = await startReceiver(() => ({ status: 200, delayMs: 60_000 }));
    const created = await h.project('Fan-out');
    projectId = created.project.id;
    for (const url of [hanging.url, ...Array.from({ length: 5 }, () => healthy.url)]) {
      const endpoint = await h.call('create-webhook-endpoint', {
        headers: apiKey(created.apiKey),
        body: { url, eventTypes: ['endpoint.disabled'] },
      });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    }
  });
  after(async () => {
    await h?.close();
    await healthy?.close();
    await hanging?.close();
  });

  const writeMessage = () =>
    h.db.query(
      `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $2::jsonb)))`,
      [
        projectId,
        JSON.stringify({ endpoint: { id: '00000000-0000-4000-8000-000000000000', url: 'x', disabledReason: 'x' } }),
      ],
    );

  it('a message to six endpoints queues one job, of the project', async () => {
    await writeMessage();
    const { rows } = await h.db.query<{ key: string }>(
      "SELECT key FROM graphile_worker._private_jobs WHERE key LIKE 'webhook:%' ORDER BY key",
    );
    assert.deepEqual(
      rows.map((r) => r.key),
      [`webhook:deliver-project:${projectId}`],
    );
    const deliveries = await h.db.query("SELECT 1 FROM webhook_deliveries WHERE status = 'pending'");
    assert.equal(deliveries.rowCount, 6);
  });

  it('the healthy endpoints are sent while the one that never answers waits for its timeout', async () => {
    const settings = { ...defaultDeliverySettings('loopback'), webhookTimeoutMs: 3_000, webhookBackoffBaseMs: 60_000 };
    const started = Date.now();
    const run = deliverProject({ db: h.db, masterKey: h.masterKey, settings, queueProject: async () => {} }, projectId);
    await healthy.waitFor(() => healthy.deliveries.length >= 5, 2_500, 'the five healthy endpoints');
    const healthyDone = Date.now() - started;
    const report = await run;
    assert.ok(healthyDone < 2_500, `healthy endpoints sent after ${healthyDone} ms, before the 3 s timeout`);
    assert.ok(Date.now() - started >= 3_000, 'the run ended once the hanging attempt timed out');
    assert.equal(hanging.deliveries.length, 1);
    assert.deepEqual(
      { delivered: report.delivered, retrying: report.retrying, failed: report.failed },
      { delivered: 5, retrying: 1, failed: 0 },
    );
  });
});
