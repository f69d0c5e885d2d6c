// The attempt log and message list: every attempt of an endpoint's deliveries, with status or failure class,
// duration and the first 1 KB of the answer; filters, cursor paging, and the retention purge.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '#api/config/config.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { deliverEndpoint } from '#api/webhooks/delivery/deliverEndpoint.ts';
import { purgeWebhookLog } from '#api/webhooks/log/purgeLog.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

describe('webhook attempt log', () => {
  let h: Harness;
  let server: Server;
  let url: string;
  let status = 500;
  let headers: Record<string, string>;
  let endpointId: string;
  let projectId: number;

  before(async () => {
    h = await createHarness();
    // A receiver that answers `status` with a body longer than the log keeps.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(status).end(`${status}:${'x'.repeat(5_000)}`));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const created = await h.project('Log');
    projectId = created.project.id;
    headers = apiKey(created.apiKey);
    const endpoint = await h.call('create-webhook-endpoint', {
      headers,
      body: { url, eventTypes: ['endpoint.disabled'] },
    });
    endpointId = endpoint.body.webhookEndpoint.id;
    // Three messages, through the same function the triggers use.
    for (let i = 0; i < 3; i++) {
      await h.db.query(
        `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                  jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $2::jsonb)))`,
        [projectId, JSON.stringify({ endpoint: { id: endpointId, url, disabledReason: `test ${i}` } })],
      );
    }
  });
  after(async () => {
    await h?.close();
    server?.close();
  });

  const settings = {
    ...defaultDeliverySettings('loopback'),
    webhookBackoffBaseMs: 60_000,
    webhookBackoffMaxMs: 60_000,
  };
  const deliver = () =>
    deliverEndpoint({ db: h.db, masterKey: h.masterKey, settings, queue: async () => {} }, endpointId);

  it('logs each attempt: outcome, status, duration, the first 1 KB of the answer', async () => {
    assert.deepEqual(await deliver(), { delivered: 0, retrying: 3, failed: 0, disabled: false });
    status = 200;
    await h.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1', [endpointId]);
    assert.deepEqual(await deliver(), { delivered: 3, retrying: 0, failed: 0, disabled: false });

    const all = await h.call('get-webhook-attempts', { headers, query: { endpointId } });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    const attempts = all.body.webhookAttempts;
    assert.equal(attempts.length, 6);
    assert.equal(all.body.nextCursor, null);
    const failed = attempts.filter((a: { outcome: string }) => a.outcome === 'http_error');
    assert.equal(failed.length, 3);
    for (const a of failed) {
      assert.equal(a.httpStatus, 500);
      assert.equal(a.response.length, 1024, 'the first 1 KB of the answer');
      assert.ok(a.response.startsWith('500:xxx'));
      assert.equal(a.url, url);
      assert.equal(a.eventType, 'endpoint.disabled');
      assert.ok(a.durationMs >= 0);
    }
    // Each message was attempted twice under one webhook-id.
    const byMessage = new Map<string, number>();
    for (const a of attempts) byMessage.set(a.webhookId, (byMessage.get(a.webhookId) ?? 0) + 1);
    assert.deepEqual([...byMessage.values()], [2, 2, 2]);

    const onlyFailed = await h.call('get-webhook-attempts', { headers, query: { endpointId, outcome: 'failed' } });
    assert.equal(onlyFailed.body.webhookAttempts.length, 3);
    const delivered = await h.call('get-webhook-attempts', { headers, query: { outcome: 'delivered' } });
    assert.equal(delivered.body.webhookAttempts.length, 3);
    const none = await h.call('get-webhook-attempts', { headers, query: { eventType: 'transaction.succeeded' } });
    assert.deepEqual(none.body.webhookAttempts, []);
    const future = await h.call('get-webhook-attempts', { headers, query: { since: '2099-01-01T00:00:00Z' } });
    assert.deepEqual(future.body.webhookAttempts, []);
  });

  it('pages with a cursor, newest first, every item once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await h.call('get-webhook-attempts', {
        headers,
        query: { endpointId, limit: '4', ...(cursor ? { cursor } : {}) },
      });
      assert.equal(page.status, 200);
      seen.push(...page.body.webhookAttempts.map((a: { id: string }) => a.id));
      cursor = page.body.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    assert.equal(pages, 2);
    assert.equal(new Set(seen).size, 6);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => Number(b) - Number(a)),
    );
    const messages = await h.call('get-webhook-messages', { headers, query: { endpointId, limit: '2' } });
    assert.equal(messages.body.webhookMessages.length, 2);
    assert.ok(messages.body.nextCursor);
    const rest = await h.call('get-webhook-messages', {
      headers,
      query: { endpointId, limit: '2', cursor: messages.body.nextCursor },
    });
    assert.equal(rest.body.webhookMessages.length, 1);
    assert.equal(rest.body.nextCursor, null);
    for (const m of [...messages.body.webhookMessages, ...rest.body.webhookMessages]) {
      assert.equal(m.status, 'delivered');
      assert.equal(m.attempts, 2);
    }
  });

  it('bad filters: 400 naming the field; another project’s endpoint is a 404', async () => {
    // Not a cursor, one of the other list, and ones forged in the cursor's form with what the database refuses.
    const attemptsCursor = Buffer.from('2026-11-20T10:15:30.000000Z|7').toString('base64url');
    const messagesCursor = Buffer.from('2026-11-20T10:15:30.000000Z|0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f');
    const forged = (text: string) => Buffer.from(text).toString('base64url');
    const badCursors: [string, string][] = [
      ['get-webhook-attempts', 'nope'],
      ['get-webhook-attempts', messagesCursor.toString('base64url')],
      ['get-webhook-messages', attemptsCursor],
      ['get-webhook-attempts', forged('2026-13-45T99:99:99Z|7')],
      ['get-webhook-attempts', forged('0000-01-01T00:00:00Z|7')],
      ['get-webhook-attempts', forged('2026-11-20T10:15:30Z|99999999999999999999')],
      ['get-webhook-messages', forged('2026-02-30T10:15:30Z|0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f')],
      ['get-webhook-messages', forged('2026-11-20T10:15:30Z|0b9e8d7c-6a5b')],
    ];
    for (const [operationId, cursor] of badCursors) {
      const bad = await h.call(operationId, { headers, query: { endpointId, cursor } });
      assert.equal(bad.status, 400, `${operationId} ${cursor}: ${JSON.stringify(bad.body)}`);
      assert.deepEqual(
        bad.body.details.map((d: { field: string }) => d.field),
        ['querystring.cursor'],
      );
    }
    const badLimit = await h.call('get-webhook-attempts', { headers, query: { limit: '101' } });
    assert.equal(badLimit.status, 400);
    assert.match(badLimit.body.details[0].field, /limit/);
    const noSource = await h.call('get-webhook-messages', { headers, query: {} });
    assert.equal(noSource.status, 400);
    assert.equal(noSource.body.details[0].field, 'querystring.endpointId');
    const other = await h.project('Other');
    const foreign = await h.call('get-webhook-messages', { headers: apiKey(other.apiKey), query: { endpointId } });
    assert.equal(foreign.status, 404);
    const theirs = await h.call('get-webhook-attempts', { headers: apiKey(other.apiKey), query: {} });
    assert.deepEqual(theirs.body.webhookAttempts, []);
  });

  it('the purge deletes what is past the retention, in bounded batches, and nothing newer', async () => {
    await h.db.query(
      `UPDATE webhook_attempts SET attempted_at = now() - interval '40 days'
        WHERE id IN (SELECT id FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY id LIMIT 2)`,
      [endpointId],
    );
    await h.db.query(
      `UPDATE webhook_messages SET created_at = now() - interval '40 days'
        WHERE id IN (SELECT id FROM webhook_messages WHERE project_id = $1 ORDER BY created_at LIMIT 1)`,
      [projectId],
    );
    assert.deepEqual(await purgeWebhookLog(h.db, 30), { attempts: 2, messages: 1 });
    const left = await h.call('get-webhook-attempts', { headers, query: { endpointId } });
    assert.equal(left.body.webhookAttempts.length, 4);
    assert.deepEqual(await purgeWebhookLog(h.db, 30), { attempts: 0, messages: 0 });
  });

  it('WEBHOOK_ATTEMPT_LOG=off: the message is delivered and recorded, and no attempt is logged', async () => {
    status = 200;
    const { rows } = await h.db.query<{ id: string }>(
      `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $2::jsonb))) AS id`,
      [projectId, JSON.stringify({ endpoint: { id: endpointId, url, disabledReason: 'unlogged' } })],
    );
    const report = await deliverEndpoint(
      { db: h.db, masterKey: h.masterKey, settings: { ...settings, webhookAttemptLog: false }, queue: async () => {} },
      endpointId,
    );
    assert.deepEqual(report, { delivered: 1, retrying: 0, failed: 0, disabled: false });
    const message = await h.call('get-webhook-messages', { headers, query: { endpointId } });
    const sent = message.body.webhookMessages.find((m: { webhookId: string }) => m.webhookId === rows[0]?.id);
    assert.equal(sent?.status, 'delivered');
    const logged = await h.db.query('SELECT 1 FROM webhook_attempts WHERE message_id = $1', [rows[0]?.id]);
    assert.equal(logged.rowCount, 0);
  });
});

describe('WEBHOOK_ATTEMPT_LOG', () => {
  const secrets = {
    MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
    TOKEN_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
  };
  it('is on unless off, and any other value is refused naming the variable', () => {
    assert.equal(loadConfig({ ...secrets, NODE_ENV: 'test' }).delivery.webhookAttemptLog, true);
    const off = loadConfig({ ...secrets, NODE_ENV: 'test', WEBHOOK_ATTEMPT_LOG: 'off' });
    assert.equal(off.delivery.webhookAttemptLog, false);
    assert.throws(
      () => loadConfig({ ...secrets, NODE_ENV: 'test', WEBHOOK_ATTEMPT_LOG: 'no' }),
      (error: Error) => error instanceof ConfigError && /WEBHOOK_ATTEMPT_LOG must be on or off/.test(error.message),
    );
  });
});
