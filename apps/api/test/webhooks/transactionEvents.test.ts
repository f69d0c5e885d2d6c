// Transaction events on a lab chain: an endpoint receives a transaction's success, its block leaving the chain and
// its finality, each signed per Standard Webhooks (checked with the reference `standardwebhooks` package), with the
// transaction as get-transaction answers it; a status change that rolls back writes and sends nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Delivery, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { Webhook } from 'standardwebhooks';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';

describe('transaction events to a webhook endpoint', () => {
  let chain: LabChain;
  let h: Harness;
  let counter: `0x${string}`;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    // Blocks every half second; `finalized` trails the head by 8 blocks (4 s), deeper than the reorg below.
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: 4 });
    counter = await deployCounter(chain.url);
    h = await createHarness({
      rpcUrls: { 1337: chain.url },
      worker: true,
      transactions: { lagGraceMs: 2_000, resendDroppedAfterMs: 1_000, finalityPollMs: 300 },
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await h?.close();
    await chain?.stop();
    await receiver?.close();
  });

  const eventsOf = (deliveries: Delivery[], transactionId: string) =>
    deliveries
      .map((d) => ({ delivery: d, payload: JSON.parse(d.body) }))
      .filter((e) => e.payload.data?.transaction?.id === transactionId);

  it('succeeded, reorged, succeeded again and finalized: exactly those events, verified, in sequence order', async () => {
    const p = await counterProject(h, counter, ['increment']);
    const created = await h.call('create-webhook-endpoint', {
      headers: p.headers,
      body: {
        url: receiver.url,
        eventTypes: ['transaction.succeeded', 'transaction.reorged', 'transaction.finalized'],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const webhook = new Webhook(created.body.webhookEndpoint.secret);

    await chain.pauseMining();
    const executed = await h.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: 'events-1' },
    });
    assert.equal(executed.status, 201);
    const id: string = executed.body.transaction.id;
    await waitFor(
      async () => ((await chain.pool()).pending[p.wallet]?.length === 1 ? true : undefined),
      15_000,
      'the transaction in the pool',
    );
    await chain.mineNow(1);
    await receiver.waitFor(() => eventsOf(receiver.deliveries, id).length >= 1, 20_000, 'transaction.succeeded');
    // Its block leaves the chain; the new branch includes it again, so it settles again, then becomes final.
    await chain.reorg(1, { reinclude: 'removed' });
    await chain.resumeMining();
    await receiver.waitFor(
      () => eventsOf(receiver.deliveries, id).some((e) => e.payload.type === 'transaction.finalized'),
      40_000,
      'transaction.finalized',
    );

    const events = eventsOf(receiver.deliveries, id).sort((a, b) => a.payload.data.sequence - b.payload.data.sequence);
    assert.deepEqual(
      events.map((e) => e.payload.type),
      ['transaction.succeeded', 'transaction.reorged', 'transaction.succeeded', 'transaction.finalized'],
    );
    assert.deepEqual(
      events.map((e) => [e.payload.data.previousStatus, e.payload.data.transaction.status]),
      [
        ['broadcasted', 'succeeded'],
        ['succeeded', 'broadcasted'],
        ['broadcasted', 'succeeded'],
        ['succeeded', 'succeeded'],
      ],
    );
    const ids = new Set<string>();
    for (const { delivery, payload } of events) {
      assert.deepEqual(webhook.verify(delivery.body, delivery.headers), payload, 'verified by standardwebhooks');
      h.validator.assertWebhook(payload);
      ids.add(delivery.headers['webhook-id'] as string);
    }
    assert.equal(ids.size, 4, 'one webhook-id per event');
    assert.equal(events[1]?.payload.data.transaction.blockNumber, null, 'reorged: the block fields are cleared');
    assert.equal(events[3]?.payload.data.transaction.finalized, true);
    const now = await h.call('get-transaction', { headers: p.headers, query: { transactionId: id } });
    const last = events[3]?.payload.data.transaction;
    for (const key of [
      'id',
      'status',
      'transactionHash',
      'blockNumber',
      'nonce',
      'gasUsed',
      'finalized',
      'createdAt',
    ]) {
      assert.deepEqual(last[key], now.body.transaction[key], `${key} as get-transaction answers it`);
    }
    // get-transaction keeps the block the reorg took back.
    const first = events[0]?.payload.data.transaction;
    assert.deepEqual(
      now.body.reorgs.map((r: { blockNumber: number; transactionHash: string }) => [r.blockNumber, r.transactionHash]),
      [[first.blockNumber, first.transactionHash]],
    );
    assert.ok(Date.parse(now.body.reorgs[0].reorgedAt) >= Date.parse(first.updatedAt));
    // Types the endpoint did not choose are not sent.
    assert.ok(receiver.deliveries.every((d) => JSON.parse(d.body).type !== 'transaction.broadcasted'));
  });

  it('a status change that rolls back writes no message and sends nothing', async () => {
    const p = await counterProject(h, counter, ['increment']);
    const created = await h.call('create-webhook-endpoint', {
      headers: p.headers,
      body: { url: receiver.url, eventTypes: ['transaction.failed', 'transaction.succeeded'] },
    });
    assert.equal(created.status, 201);
    const executed = await h.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: 'rolled-back' },
    });
    const id: string = executed.body.transaction.id;
    await receiver.waitFor(() => eventsOf(receiver.deliveries, id).length === 1, 20_000, 'transaction.succeeded');
    const client = await h.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE transactions SET status = 'monitor-failed', error_message = 'test' WHERE id = $1`, [
        id,
      ]);
      const inside = await client.query(
        `SELECT count(*)::int AS n FROM webhook_messages WHERE transaction_id = $1 AND event_type = 'transaction.failed'`,
        [id],
      );
      assert.equal(inside.rows[0]?.n, 1, 'written in the same database transaction as the change');
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    const { rows } = await h.db.query(
      `SELECT event_type FROM webhook_messages WHERE transaction_id = $1 ORDER BY sequence`,
      [id],
    );
    assert.deepEqual(
      rows.map((r) => r.event_type),
      ['transaction.succeeded'],
    );
    // A later committed change is delivered; the rolled-back one never was.
    await h.db.query(`UPDATE transactions SET status = 'monitor-failed', error_message = 'test' WHERE id = $1`, [id]);
    await receiver.waitFor(() => eventsOf(receiver.deliveries, id).length === 2, 20_000, 'transaction.failed');
    assert.deepEqual(
      eventsOf(receiver.deliveries, id).map((e) => e.payload.type),
      ['transaction.succeeded', 'transaction.failed'],
    );
  });
});
