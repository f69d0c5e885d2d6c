// Deleting an endpoint while its delivery's outcome is being recorded: the deletion waits for the record (the
// endpoint's row is locked first by both) instead of deadlocking with it, and takes the endpoint's attempt log too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type pg from 'pg';
import type { Db } from '#api/db/db.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverEndpoint } from '#api/webhooks/delivery/deliverEndpoint.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

describe('deleting a webhook endpoint during a delivery', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let headers: Record<string, string>;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    receiver = await startReceiver();
    const created = await h.project('Delete during delivery');
    projectId = created.project.id;
    headers = apiKey(created.apiKey);
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('the deletion answers 200 once the outcome is recorded, and leaves no delivery or attempt', async () => {
    const created = await h.call('create-webhook-endpoint', {
      headers,
      body: { url: receiver.url, eventTypes: ['transaction.succeeded'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const endpointId = created.body.webhookEndpoint.id as string;
    await h.db.query(
      `SELECT webhook_write_message($1, 'transaction.succeeded', NULL,
                jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', '{}'::jsonb)))`,
      [projectId],
    );
    // The database as the delivery sees it, except that the transaction recording the outcome, after its first
    // statement, lets a deletion of the endpoint start and reach its locks before it goes on.
    let deletion: Promise<Awaited<ReturnType<Harness['call']>>> | undefined;
    const db: Db = {
      ...h.db,
      transaction: (fn) =>
        h.db.transaction(async (client) => {
          let statements = 0;
          const paused = new Proxy(client, {
            get(target, key, receiverOfGet) {
              if (key !== 'query') return Reflect.get(target, key, receiverOfGet);
              return async (...args: Parameters<pg.PoolClient['query']>) => {
                const result = await (target.query as (...a: unknown[]) => Promise<unknown>)(...args);
                if (++statements === 1 && !deletion) {
                  deletion = h.call('delete-webhook-endpoint', { headers, body: { id: endpointId } });
                  await sleep(300);
                }
                return result;
              };
            },
          });
          return fn(paused);
        }),
    };
    const settings = defaultDeliverySettings('loopback');
    const report = await deliverEndpoint({ db, masterKey: h.masterKey, settings, queue: async () => {} }, endpointId);
    assert.deepEqual(report, { delivered: 1, retrying: 0, failed: 0, disabled: false });
    assert.equal(receiver.deliveries.length, 1);
    assert.ok(deletion, 'the deletion was started during the record');
    const deleted = await deletion;
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));

    const left = await h.db.query(
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1)::int AS deliveries,
              (SELECT count(*) FROM webhook_attempts WHERE endpoint_id = $1)::int AS attempts`,
      [endpointId],
    );
    assert.deepEqual(left.rows[0], { deliveries: 0, attempts: 0 });
    const attempts = await h.call('get-webhook-attempts', { headers, query: { endpointId } });
    assert.deepEqual(attempts.body.webhookAttempts, []);
  });
});
