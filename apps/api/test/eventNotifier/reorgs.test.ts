// Event records follow the canonical chain: on a lab chain mined by hand, a reorg that replaces recorded events
// with others marks them removed, records the new branch's events once, and sends a removal webhook for each one
// that was delivered; an event removed before any delivery is never sent; a subscription whose confirmations
// outlast the reorg sees only the canonical events; blocks replaced, then made final before the next scan, are
// followed too. Scans and deliveries are called directly, one at a time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deployEmitter, transferCall } from '@mountain/testkit/eventEmitter.ts';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { devAccount, devWallet } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { WebhookEvent } from '@mountain/webhook-sdk';
import type { Address, Hex } from 'viem';
import { deliverDue } from '#api/eventNotifier/delivery/delivery.ts';
import { deliveryQueue } from '#api/eventNotifier/delivery/jobs.ts';
import { scanQueue } from '#api/eventNotifier/scanning/jobs.ts';
import { scanSubscription } from '#api/eventNotifier/scanning/scanner.ts';
import type { RecordView } from '#api/eventNotifier/subscriptions/records.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { createResponseValidator } from '#api-testing/openapi.ts';
import { FAST_SETTINGS, subscribeTo, transferSubscription } from '../helpers/eventNotifier.ts';

const SENDER = devAccount(2);
const RECIPIENT = devAccount(3).address;

describe('event records on a chain that reorganises', () => {
  let chain: LabChain;
  let h: Harness;
  let key: string;
  let emitter: Address;
  let receiver: Receiver;

  before(async () => {
    chain = await startLabChain({ port: await freePort() });
    emitter = (await deployEmitter(chain.url)).address;
    await chain.pauseMining();
    h = await createHarness({ rpcUrls: { 1337: chain.url } });
    key = (await h.project('Reorgs')).apiKey;
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await h?.close();
    await chain?.stop();
  });

  const scan = async (id: string) => {
    const outcome = await scanSubscription(
      { db: h.db, chains: h.deps.chains, settings: FAST_SETTINGS, queue: scanQueue },
      id,
    );
    assert.equal(outcome.kind, 'scanned', JSON.stringify(outcome));
  };
  const deliver = (id: string) =>
    deliverDue({ db: h.db, masterKey: h.masterKey, settings: FAST_SETTINGS, queue: deliveryQueue }, id);
  const records = async (subscriptionId: string, includeRemoved?: boolean): Promise<RecordView[]> => {
    const res = await h.call('get-records', {
      headers: apiKey(key),
      body: { subscriptionId, ...(includeRemoved === undefined ? {} : { includeRemoved }) },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.eventNotifierRecords;
  };
  const transfer = (value: bigint) => transferCall(RECIPIENT, value);
  const wallet = () => devWallet(chain.url, SENDER);
  /** One Transfer per block, of each value in turn. */
  async function emitEach(values: bigint[]) {
    for (const value of values) {
      await wallet().sendTransaction({ to: emitter, data: transfer(value) });
      await chain.mineNow(1);
    }
  }
  const subscribe = async (extra: object = {}) =>
    subscribeTo(h, key, {
      ...transferSubscription(emitter),
      subscriptionName: 'Followed',
      initialBlockNumber: Number(await chain.head()) + 1,
      confirmations: 0,
      ...extra,
    });
  /** The canonical chain's Transfer logs of the emitter from `fromBlock`: what the live records must be. */
  async function canonicalLogs(fromBlock: number) {
    const logs = await chain.rpc<{ blockNumber: Hex; blockHash: Hex; transactionHash: Hex; logIndex: Hex }[]>(
      'eth_getLogs',
      [{ address: emitter, fromBlock: `0x${fromBlock.toString(16)}`, toBlock: 'latest' }],
    );
    return logs.map((l) => `${Number(l.blockNumber)} ${l.blockHash} ${l.transactionHash} ${Number(l.logIndex)}`).sort();
  }
  const live = (rows: RecordView[]) =>
    rows
      .filter((r) => !r.removed)
      .map((r) => `${r.blockNumber} ${r.blockHash} ${r.transactionHash} ${r.logIndex}`)
      .sort();
  const webhooks = (subscriptionId: string) =>
    receiver.deliveries
      .map((d) => ({ id: d.headers['webhook-id'] as string, event: JSON.parse(d.body) as WebhookEvent }))
      .filter((d) => d.event.data.subscription.id === subscriptionId);

  it('a reorg replacing five delivered events with three others: removed, notified once, the three recorded', async () => {
    const id = await subscribe({ webhookURL: receiver.url });
    const from = Number(await chain.head()) + 1;
    await emitEach([1n, 2n, 3n, 4n, 5n]);
    await scan(id);
    assert.equal((await deliver(id)).notified, 5);
    const originals = await records(id);
    assert.equal(originals.length, 5);

    // The five blocks are replaced by five others holding three different Transfers.
    const { removed } = await chain.reorg(5, {
      replacements: [100n, 200n, 300n].map((value, i) => ({
        tx: { from: SENDER.address, to: emitter, data: transfer(value) },
        blockOffset: i * 2,
      })),
    });
    assert.equal(removed.length, 5);
    await scan(id);

    const after = await records(id);
    assert.equal(after.length, 8);
    const gone = after.filter((r) => r.removed);
    assert.deepEqual(gone.map((r) => r.id).sort(), originals.map((r) => r.id).sort());
    assert.ok(gone.every((r) => r.removedAt !== null && r.status === 'notified'));
    assert.deepEqual(live(after), await canonicalLogs(from), 'the live records are the canonical chain’s logs');
    assert.deepEqual(
      after.filter((r) => !r.removed).map((r) => r.decodedLog.value),
      ['300', '200', '100'],
    );
    assert.deepEqual(
      (await records(id, false)).map((r) => r.removed),
      [false, false, false],
      'includeRemoved: false leaves the removed ones out',
    );

    assert.equal((await deliver(id)).notified, 8);
    const sent = webhooks(id);
    const notices = sent.filter((d) => d.event.type === 'event_notifier.event.removed');
    assert.equal(notices.length, 5);
    for (const original of originals) {
      const first = sent.findIndex((d) => d.event.type === 'event_notifier.event' && d.id === original.id);
      const notice = sent.findIndex(
        (d) => d.event.type === 'event_notifier.event.removed' && d.event.data.recordId === original.id,
      );
      assert.ok(first >= 0 && notice > first, 'the removal follows the event');
      assert.notEqual(sent[notice]?.id, original.id, 'a removal has its own webhook-id');
      assert.deepEqual(sent[notice]?.event.data, sent[first]?.event.data, 'with the data of the event');
    }
    assert.equal(sent.filter((d) => d.event.type === 'event_notifier.event').length, 8);
    // Both kinds are what the OpenAPI document's `webhooks` section describes.
    const documented = createResponseValidator();
    for (const d of sent) documented.assertWebhook(d.event);

    // Nothing more: another scan and delivery find no change.
    await scan(id);
    assert.equal((await records(id)).length, 8);
    assert.equal((await deliver(id)).notified, 0);
  });

  it('the same transactions re-included in the new branch: new records in their new blocks, the old removed', async () => {
    const id = await subscribe({ webhookURL: receiver.url });
    const from = Number(await chain.head()) + 1;
    await emitEach([7n, 8n]);
    await chain.mineNow(1);
    await scan(id);
    await deliver(id);
    const { reincluded } = await chain.reorg(3, { reinclude: 'removed' });
    assert.equal(reincluded.length, 2);
    await scan(id);
    const after = await records(id);
    assert.deepEqual(live(after), await canonicalLogs(from));
    assert.equal(after.filter((r) => r.removed).length, 2);
    assert.equal((await deliver(id)).notified, 4, 'two removals, two events in their new blocks');
  });

  it('an event removed while its webhook is in flight: the removal waits for that attempt to end', async () => {
    const id = await subscribe({ webhookURL: receiver.url });
    await emitEach([14n]);
    await scan(id);
    const [original] = await records(id);
    // The receiver holds its answer to the event for a while.
    receiver.respondWith((d) => ({ status: 200, delayMs: d.headers['webhook-id'] === original?.id ? 1_500 : 0 }));
    try {
      const inFlight = deliver(id);
      await receiver.waitFor(() => webhooks(id).length === 1, 5_000, 'the event in flight');
      await chain.reorg(1);
      await scan(id);
      assert.equal((await records(id))[0]?.removed, true);
      assert.equal((await deliver(id)).notified, 0, 'no removal while the event is in flight');
      // The delivery that sent the event goes on to the removal once its attempt has ended.
      assert.equal((await inFlight).notified, 2);
      assert.deepEqual(
        webhooks(id).map((d) => d.event.type),
        ['event_notifier.event', 'event_notifier.event.removed'],
      );
    } finally {
      receiver.respondWith(() => ({ status: 200 }));
    }
  });

  it('an event removed before any delivery is never sent, and no removal is', async () => {
    const id = await subscribe();
    await emitEach([9n, 10n]);
    await scan(id);
    assert.equal((await records(id)).length, 2);
    await chain.reorg(2);
    await scan(id);
    assert.deepEqual(
      (await records(id)).map((r) => r.removed),
      [true, true],
    );
    const enabled = await h.call('update-subscription-webhook', {
      headers: apiKey(key),
      body: { id, webhookURL: receiver.url },
    });
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    assert.equal((await deliver(id)).notified, 0);
    assert.equal(webhooks(id).length, 0);
  });

  for (const anchored of [true, false]) {
    const shape = anchored ? 'a kept block below them' : 'no kept block below them';
    it(`blocks replaced, then made final before the next scan (${shape}): their old records still go`, async () => {
      const id = await subscribe({ webhookURL: receiver.url });
      const from = Number(await chain.head()) + 1;
      await emitEach([21n]);
      if (anchored) await scan(id);
      await emitEach([22n, 23n, 24n]);
      await scan(id);
      assert.equal((await deliver(id)).notified, 4);
      const replaced = (await records(id)).filter((r) => r.decodedLog.value !== '21');
      await chain.reorg(3, {
        replacements: [{ tx: { from: SENDER.address, to: emitter, data: transfer(25n) }, blockOffset: 1 }],
      });
      // `finalized` trails the head by 8 blocks: after 9 more, the replaced blocks are final before the scan looks.
      await chain.mineNow(9);
      assert.ok((await chain.finalized()) >= BigInt(Math.max(...replaced.map((r) => r.blockNumber))));
      await scan(id);

      const after = await records(id);
      assert.deepEqual(live(after), await canonicalLogs(from));
      assert.deepEqual(
        after
          .filter((r) => r.removed)
          .map((r) => r.id)
          .sort(),
        replaced.map((r) => r.id).sort(),
      );
      assert.equal((await deliver(id)).notified, 4, 'three removals and the new branch’s event');
    });
  }

  it('with confirmations deeper than the reorg, only canonical events are ever recorded', async () => {
    const id = await subscribe({ webhookURL: receiver.url, confirmations: 4 });
    const from = Number(await chain.head()) + 1;
    await emitEach([11n, 12n]);
    await scan(id);
    assert.equal((await records(id)).length, 0, 'not deep enough yet');
    await chain.reorg(2, {
      replacements: [{ tx: { from: SENDER.address, to: emitter, data: transfer(13n) }, blockOffset: 1 }],
    });
    await chain.mineNow(4);
    await scan(id);
    const after = await records(id);
    assert.deepEqual(
      after.map((r) => [r.decodedLog.value, r.removed]),
      [['13', false]],
    );
    assert.deepEqual(live(after), await canonicalLogs(from));
  });
});
