import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { deployEmitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { eventually, type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { WebhookEvent } from '@mountain/webhook-sdk';
import { Webhook } from 'standardwebhooks';
import { getAddress } from 'viem';
import { sendWebhook } from '#api/delivery/webhookSender.ts';
import type { RecordView } from '#api/eventNotifier/subscriptions/records.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { FAST_SETTINGS, startTestWorker } from '../helpers/eventNotifier.ts';

describe('event notifier end to end: anvil → worker → signed webhooks', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let key: string;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  const receivers: Receiver[] = [];

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    h.deps.eventNotifier = FAST_SETTINGS;
    h.deps.delivery = FAST_SETTINGS;
    key = (await h.project('Events')).apiKey;
    worker = await startTestWorker(h);
  });
  after(async () => {
    await worker?.stop();
    for (const r of receivers) await r.close();
    await h?.close();
    await anvil?.stop();
  });

  async function receiver(...args: Parameters<typeof startReceiver>) {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }
  async function subscribe(address: string, webhookURL: string, extra: object = {}) {
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: {
        subscriptionName: 'Transfers',
        networkId: 1337,
        address,
        formattedAbiEvent: TRANSFER_EVENT,
        initialBlockNumber: 0,
        scanInterval: 5,
        webhookURL,
        ...extra,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.eventNotifierSubscription;
  }
  const records = async (subscriptionId: string): Promise<RecordView[]> =>
    (await h.call('get-records', { headers: apiKey(key), body: { subscriptionId } })).body.eventNotifierRecords;
  const recordWith = (subscriptionId: string, predicate: (r: RecordView) => boolean, what: string) =>
    eventually(async () => (await records(subscriptionId)).find(predicate), 20_000, what);

  it('backfills past events from initialBlockNumber, then picks up new ones; every webhook verifies', async () => {
    const emitter = await deployEmitter(anvil.url);
    const past = [await emitter.emitTransfer(1n), await emitter.emitTransfer(2n)];
    await emitter.emitApproval(3n); // another event of the same contract: not recorded
    const many = await emitter.emitMany(5, 100);
    const r = await receiver();
    const s = await subscribe(emitter.address, r.url);
    await r.waitFor(() => r.deliveries.length >= 7, 15_000, '7 backfilled webhooks');

    const live = await emitter.emitTransfer(42n);
    await r.waitFor(() => r.deliveries.length >= 8, 15_000, 'the live event');

    const wh = new Webhook(s.webhookSecret);
    // Records are sent concurrently: arrival order is not the chain's order.
    const byPosition = (a: WebhookEvent, b: WebhookEvent) =>
      a.data.blockNumber - b.data.blockNumber || a.data.logIndex - b.data.logIndex;
    const verified = r.deliveries.map((d) => ({ d, event: wh.verify(d.body, d.headers) as WebhookEvent }));
    for (const { d, event } of verified) {
      assert.equal(d.headers['webhook-id'], event.data.recordId);
      assert.equal(d.headers['content-type'], 'application/json');
    }
    const payloads = verified.map((v) => v.event).sort(byPosition);
    const payload = (i: number) => payloads[i] as WebhookEvent;
    const first = payload(0);
    assert.equal(first.type, 'event_notifier.event');
    assert.deepEqual(first.data.subscription, { id: s.id, name: 'Transfers', projectId: s.projectId });
    assert.deepEqual(first.data.network, { id: 1337, name: 'Local development chain (anvil)' });
    assert.equal(first.data.contractAddress, s.address);
    assert.deepEqual(first.data.event, { name: 'Transfer', signature: 'Transfer(address,address,uint256)' });
    assert.deepEqual(first.data.decodedLog, {
      from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      to: getAddress('0x00000000000000000000000000000000000000aa'),
      value: '1',
    });
    assert.equal(first.data.blockNumber, Number(past[0]?.blockNumber));
    assert.equal(first.data.transactionHash, past[0]?.transactionHash);
    const block = await emitter.publicClient.getBlock({ blockNumber: past[0]?.blockNumber as bigint });
    assert.equal(first.data.blockTimestamp, new Date(Number(block.timestamp) * 1000).toISOString());
    assert.equal(first.data.blockHash, block.hash, 'the hash of the very block that holds the event');
    assert.deepEqual(
      payloads.map((p) => p.data.decodedLog.value),
      ['1', '2', '100', '101', '102', '103', '104', '42'],
    );
    assert.deepEqual(
      payloads.slice(2, 7).map((p) => [p.data.transactionHash, p.data.logIndex]),
      [0, 1, 2, 3, 4].map((i) => [many.transactionHash, i]),
    );
    assert.equal(payload(7).data.blockNumber, Number(live.blockNumber));

    const stored = await eventually(async () => {
      const list = await records(s.id);
      return list.length === 8 && list.every((x: RecordView) => x.status === 'notified') && list;
    });
    assert.deepEqual(
      stored.map((x: RecordView) => x.decodedLog.value),
      ['42', '104', '103', '102', '101', '100', '2', '1'],
      'newest first',
    );
    const [sub] = (await h.call('get-subscriptions', { headers: apiKey(key) })).body.eventNotifierSubscriptions;
    assert.equal(sub.scanStatus === 'failed', false);
    assert.ok(sub.lastScannedBlock >= Number(live.blockNumber));
    assert.ok(Date.parse(sub.lastScannedAt) <= Date.now());
    assert.ok(Date.parse(sub.nextScanAt) > Date.parse(sub.lastScannedAt));
    assert.equal(sub.lastScanFailureMessage, null);
  });

  it('500s: retries up to webhookMaxRetries, then failed; resend delivers with the same webhook-id', async () => {
    const emitter = await deployEmitter(anvil.url);
    await emitter.emitTransfer(7n);
    const r = await receiver(() => ({ status: 500 }));
    const s = await subscribe(emitter.address, r.url, { webhookMaxRetries: 2 });
    const failed = await recordWith(s.id, (x) => x.status === 'failed', 'a failed record');
    assert.equal(r.deliveries.length, 3, '1 attempt + 2 retries');
    assert.equal(failed.notificationFailureCount, 3);
    assert.equal(failed.lastNotificationFailureMessage, 'HTTP 500 Internal Server Error');
    assert.ok(Date.parse(failed.lastNotificationFailedAt as string) <= Date.now());
    const gaps = r.deliveries
      .slice(1)
      .map((d, i) => d.receivedAt - (r.deliveries[i] as { receivedAt: number }).receivedAt);
    assert.ok(
      gaps.every((g) => g >= 100),
      `backoff between attempts: ${gaps}`,
    );

    r.respondWith(() => ({ status: 204 }));
    const resend = await h.call('resend-failed-webhook', { headers: apiKey(key), body: { subscriptionId: s.id } });
    assert.deepEqual(resend.body.record, {
      subscriptionId: s.id,
      requeuedCount: 1,
      recordIds: [failed.id],
      forced: false,
    });
    await recordWith(s.id, (x) => x.status === 'notified', 'the resent record notified');
    assert.equal(r.deliveries.length, 4);
    assert.ok(r.deliveries.every((d) => d.headers['webhook-id'] === failed.id));
  });

  it('without force a resend is one more attempt; force gives a new round of retries, even when disabled', async () => {
    const emitter = await deployEmitter(anvil.url);
    await emitter.emitTransfer(8n);
    const r = await receiver(() => ({ status: 500 }));
    const s = await subscribe(emitter.address, r.url, { webhookMaxRetries: 1 });
    const failed = await recordWith(s.id, (x) => x.status === 'failed', 'a failed record');
    assert.equal(r.deliveries.length, 2);

    // Retries ran out: a plain resend is a single attempt.
    await h.call('resend-failed-webhook', { headers: apiKey(key), body: { subscriptionId: s.id } });
    await recordWith(s.id, (x) => x.status === 'failed' && x.notificationFailureCount === 3, 'one more failure');
    await new Promise((done) => setTimeout(done, 600));
    assert.equal(r.deliveries.length, 3);

    // Disabled: a plain resend does nothing; a forced one sends, with a whole new round of retries.
    await h.call('update-subscription-webhook', { headers: apiKey(key), body: { id: s.id, webhookEnabled: false } });
    const plain = await h.call('resend-failed-webhook', { headers: apiKey(key), body: { subscriptionId: s.id } });
    assert.equal(plain.body.record.requeuedCount, 0);
    let answered = 0;
    r.respondWith(() => ({ status: answered++ === 0 ? 500 : 200 }));
    const forced = await h.call('resend-failed-webhook', {
      headers: apiKey(key),
      body: { subscriptionId: s.id, force: true },
    });
    assert.deepEqual(forced.body.record, {
      subscriptionId: s.id,
      requeuedCount: 1,
      recordIds: [failed.id],
      forced: true,
    });
    const done = await recordWith(s.id, (x) => x.status === 'notified', 'the forced record notified');
    assert.equal(r.deliveries.length, 5, 'a failure then a success within the forced round');
    assert.equal(done.notificationFailureCount, 4);
    assert.ok(r.deliveries.every((d) => d.headers['webhook-id'] === failed.id));

    // Still disabled: a new event is recorded but stays `scanned`.
    await emitter.emitTransfer(9n);
    const scanned = await recordWith(s.id, (x) => x.decodedLog.value === '9', 'the new record');
    assert.equal(scanned.status, 'scanned');
    await new Promise((wait) => setTimeout(wait, 1_500));
    assert.equal(r.deliveries.length, 5);
    assert.equal((await records(s.id)).find((x: RecordView) => x.decodedLog.value === '9')?.status, 'scanned');
  });

  it('429 with Retry-After: the next attempt waits at least that long', async () => {
    const emitter = await deployEmitter(anvil.url);
    await emitter.emitTransfer(10n);
    let answered = 0;
    const r = await receiver(() =>
      answered++ === 0 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 },
    );
    const s = await subscribe(emitter.address, r.url);
    await recordWith(s.id, (x) => x.status === 'notified', 'the record notified');
    assert.equal(r.deliveries.length, 2);
    const waited = (r.deliveries[1]?.receivedAt as number) - (r.deliveries[0]?.receivedAt as number);
    assert.ok(waited >= 2_000, `waited ${waited} ms`);
    const [record] = await records(s.id);
    assert.equal(record?.lastNotificationFailureMessage, 'HTTP 429 Too Many Requests');
  });

  it('a receiver slower than the attempt timeout counts as a failed attempt', async () => {
    const emitter = await deployEmitter(anvil.url);
    await emitter.emitTransfer(12n);
    const r = await receiver(() => ({ status: 200, delayMs: FAST_SETTINGS.webhookTimeoutMs + 1_000 }));
    const s = await subscribe(emitter.address, r.url, { webhookMaxRetries: 0 });
    const failed = await recordWith(s.id, (x) => x.status === 'failed', 'a failed record');
    assert.equal(failed.lastNotificationFailureMessage, `No answer within ${FAST_SETTINGS.webhookTimeoutMs} ms`);
    assert.equal(r.deliveries.length, 1);
  });

  it('a receiver that refuses the connection counts as a failed attempt, with the reason', async () => {
    const emitter = await deployEmitter(anvil.url);
    await emitter.emitTransfer(11n);
    const r = await receiver(() => ({ status: 200 }));
    // Connection refused: nothing listens on this port.
    const s = await subscribe(emitter.address, `http://127.0.0.1:${await freePort()}/hook`, { webhookMaxRetries: 0 });
    const failed = await recordWith(s.id, (x) => x.status === 'failed', 'a failed record');
    assert.match(failed.lastNotificationFailureMessage as string, /^Connection failed: ECONNREFUSED/);
    assert.equal(r.deliveries.length, 0);
  });

  it('a stored URL on a port the worker does not call fails its records, naming the port rule', async () => {
    const emitter = await deployEmitter(anvil.url);
    await emitter.emitTransfer(13n);
    // Accepted by an API allowing every port; the worker allows 80, 443 and 1024-65535 (port 9 is discard).
    h.deps.delivery = { ...FAST_SETTINGS, webhookAllowedPorts: [[1, 65535]] };
    const s = await subscribe(emitter.address, 'http://127.0.0.1:9/hook', { webhookMaxRetries: 0 }).finally(() => {
      h.deps.delivery = FAST_SETTINGS;
      h.deps.delivery = FAST_SETTINGS;
    });
    const failed = await recordWith(s.id, (x) => x.status === 'failed', 'a failed record');
    assert.equal(
      failed.lastNotificationFailureMessage,
      'Webhook URL refused: its port 9 is not one this deployment calls (webhook URLs may use ports 80, 443 and 1024-65535)',
    );
  });
});

describe('webhook connections', () => {
  it('are refused at connect time when the name resolves to an address the deployment does not call', async () => {
    const r = await startReceiver();
    try {
      const port = new URL(r.url).port;
      const attempt = (allowance: 'none' | 'loopback') =>
        sendWebhook({
          url: `http://localhost:${port}/hook`,
          id: '0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f',
          event: { type: 'event_notifier.event', timestamp: new Date().toISOString(), data: {} } as never,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          timeoutMs: 2_000,
          allowance,
        });
      const refused = await attempt('none');
      assert.equal(refused.ok, false);
      assert.match(
        (refused as { message: string }).message,
        /^Connection failed: localhost resolves to a loopback address, which this deployment does not call$/,
      );
      assert.equal(r.deliveries.length, 0);
      const allowed = await attempt('loopback');
      assert.deepEqual([allowed.ok, allowed.status, allowed.outcome], [true, 200, 'delivered']);
      assert.equal(r.deliveries.length, 1);
    } finally {
      await r.close();
    }
  });
});
