// Event records follow the canonical chain during a live scan: on a lab chain with half-second blocks, behind a
// load-balanced provider whose nodes sometimes lag, Transfers are emitted steadily while a job worker scans and
// delivers two subscriptions (confirmations 0 and 4), and reorgs of depth 1, 3 and 7 (deeper than 4) replace blocks
// with branches holding more, the same and fewer events, at moments drawn from a seed. Afterwards, per subscription,
// over its scanned range: the live records are exactly the canonical logs, each once; each removed record that had
// been delivered got exactly one removal webhook, after its event; nothing was sent for a removed record after its
// removal was known; every webhook verifies with the standardwebhooks library.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deployEmitter, TRANSFER_EVENT, transferCall } from '@mountain/testkit/eventEmitter.ts';
import { type LabChain, type Replacement, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { devAccount, devWallet } from '@mountain/testkit/lab/devAccounts.ts';
import { type ProviderProxy, startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { eventually, type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { WebhookEvent } from '@mountain/webhook-sdk';
import { Webhook } from 'standardwebhooks';
import type { Address, Hex } from 'viem';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { startTestWorker } from '../helpers/eventNotifier.ts';

const EMITTER_KEY = devAccount(2);
const BRANCH_KEY = devAccount(4);
const RECIPIENT = devAccount(3).address;
const SEED = Number(process.env.REORG_SEED ?? 20261124);

/** A small seeded generator (mulberry32): the reorg moments are the same on every run of one seed. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Followed {
  id: string;
  secret: string;
  receiver: Receiver;
  confirmations: number;
}

describe('event records during a live scan on a chain that reorganises', () => {
  let chain: LabChain;
  let provider: ProviderProxy;
  let h: Harness;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let key: string;
  let emitter: Address;
  const subscriptions: Followed[] = [];

  before(async () => {
    // `finalized` trails the head by 16 blocks (8 s): deeper than every reorg below.
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: 8 });
    emitter = (await deployEmitter(chain.url)).address;
    provider = await startProviderProxy(chain.url, { port: await freePort(), lag: { blocks: 2, probability: 0.1 } });
    h = await createHarness({ rpcUrls: { 1337: provider.url } });
    worker = await startTestWorker(h);
    key = (await h.project('Live reorgs')).apiKey;
  });
  after(async () => {
    await worker?.stop();
    for (const s of subscriptions) await s.receiver.close();
    await h?.close();
    await provider?.close();
    await chain?.stop();
  });

  const transfer = (value: bigint) => transferCall(RECIPIENT, value);

  async function follow(confirmations: number, fromBlock: number): Promise<Followed> {
    const receiver = await startReceiver();
    const res = await h.call('create-subscription', {
      headers: apiKey(key),
      body: {
        subscriptionName: `Live ${confirmations}`,
        networkId: 1337,
        address: emitter,
        formattedAbiEvent: TRANSFER_EVENT,
        initialBlockNumber: fromBlock,
        scanInterval: 5,
        confirmations,
        webhookURL: receiver.url,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const s = res.body.eventNotifierSubscription;
    return { id: s.id, secret: s.webhookSecret, receiver, confirmations };
  }

  it('reorgs of depth 1, 3 and 7 while events are scanned and delivered', async () => {
    const from = Number(await chain.head()) + 1;
    subscriptions.push(await follow(0, from), await follow(4, from));
    const wallet = devWallet(chain.url, EMITTER_KEY);
    // A Transfer every 200 ms, about two a block.
    let emitting = true;
    let value = 0n;
    const emitted = (async () => {
      while (emitting) {
        await wallet.sendTransaction({ to: emitter, data: transfer(++value) });
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const next = random(SEED);
    const branch = (count: number, depth: number): Replacement[] =>
      Array.from({ length: count }, (_, i) => ({
        tx: { from: BRANCH_KEY.address, to: emitter, data: transfer(1_000_000n + BigInt(i)) },
        blockOffset: i % depth,
      }));
    // Each reorg at a moment drawn from the seed, then right after the next scan of the subscription it is meant to
    // reach, with mining paused meanwhile so that it takes back blocks that scan recorded (scans are 5 s apart: 10
    // blocks). Deliveries of earlier events are under way all along.
    const [fast, deep] = subscriptions as [Followed, Followed];
    const plan = [
      { after: fast, depth: 1, options: { replacements: branch(3, 1) } }, // more events than it removes
      { after: fast, depth: 3, options: { reinclude: 'removed' as const } }, // the same events, new blocks
      { after: deep, depth: 7, options: { replacements: branch(1, 7) } }, // fewer, deeper than 4
    ];
    const scannedTo = async (s: Followed) =>
      (
        await h.db.query<{ n: number }>(
          'SELECT last_scanned_block::int AS n FROM event_notifier_subscriptions WHERE id = $1',
          [s.id],
        )
      ).rows[0]?.n ?? -1;
    const removedByReorgs: number[] = [];
    try {
      for (const step of plan) {
        await new Promise((r) => setTimeout(r, 1_000 + next() * 3_000));
        await chain.pauseMining();
        const head = Number(await chain.head());
        await eventually(
          async () => (await scannedTo(step.after)) >= head - step.after.confirmations,
          15_000,
          'the next scan',
        );
        const r = await chain.reorg(step.depth, step.options);
        await chain.resumeMining();
        removedByReorgs.push(r.removed.length);
      }
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      emitting = false;
      await emitted;
    }
    assert.deepEqual(removedByReorgs, [1, 3, 7]);

    // Everything scanned past the last emitted block, and nothing left to send.
    const lastEmitted = Number(await chain.head());
    for (const s of subscriptions) {
      await eventually(
        async () => {
          const { rows } = await h.db.query<{ scanned: number; pending: number }>(
            `SELECT s.last_scanned_block::int AS scanned,
                    (SELECT count(*)::int FROM event_notifier_records r
                      WHERE r.subscription_id = s.id AND r.status = 'scanned' AND r.next_attempt_at IS NOT NULL
                        AND r.removed_at IS NULL) AS pending
               FROM event_notifier_subscriptions s WHERE s.id = $1`,
            [s.id],
          );
          const row = rows[0];
          return row && row.scanned >= lastEmitted && row.pending === 0;
        },
        40_000,
        `subscription with confirmations ${s.confirmations} scanned past block ${lastEmitted} and delivered`,
      );
    }
    const removedTotal = new Map<number, number>();
    for (const s of subscriptions) removedTotal.set(s.confirmations, await check(s));
    assert.ok((removedTotal.get(0) ?? 0) > 0, 'the reorgs removed records of the subscription without confirmations');
    assert.ok((removedTotal.get(4) ?? 0) > 0, 'the reorg deeper than 4 removed records of the one with 4');
  });

  /** The checks of one subscription; answers how many of its records were removed. */
  async function check(s: Followed): Promise<number> {
    const { rows: records } = await h.db.query<{
      id: string;
      block: number;
      blockHash: Hex;
      tx: Hex;
      logIndex: number;
      removedAt: Date | null;
    }>(
      `SELECT id, block_number::int AS block, block_hash AS "blockHash", transaction_hash AS tx, log_index AS "logIndex",
              removed_at AS "removedAt"
         FROM event_notifier_records WHERE subscription_id = $1 AND removal_of IS NULL`,
      [s.id],
    );
    const { rows: sub } = await h.db.query<{ from: number; to: number }>(
      `SELECT initial_block_number AS from, last_scanned_block::int AS to FROM event_notifier_subscriptions
        WHERE id = $1`,
      [s.id],
    );
    const range = sub[0] as { from: number; to: number };
    const logs = await chain.rpc<{ blockNumber: Hex; blockHash: Hex; transactionHash: Hex; logIndex: Hex }[]>(
      'eth_getLogs',
      [{ address: emitter, fromBlock: `0x${range.from.toString(16)}`, toBlock: `0x${range.to.toString(16)}` }],
    );
    const canonical = logs
      .map((l) => `${Number(l.blockNumber)} ${l.blockHash} ${l.transactionHash} ${Number(l.logIndex)}`)
      .sort();
    const live = records
      .filter((r) => r.removedAt === null)
      .map((r) => `${r.block} ${r.blockHash} ${r.tx} ${r.logIndex}`)
      .sort();
    const missing = canonical.filter((c) => !live.includes(c));
    const extra = live.filter((l) => !canonical.includes(l));
    assert.deepEqual(
      { missing, extra, twice: live.length - new Set(live).size },
      { missing: [], extra: [], twice: 0 },
      `confirmations ${s.confirmations}: the live records are the canonical logs`,
    );

    const wh = new Webhook(s.secret);
    const sent = s.receiver.deliveries.map((d, order) => ({
      order,
      id: d.headers['webhook-id'] as string,
      signedAt: Number(d.headers['webhook-timestamp']),
      event: wh.verify(d.body, d.headers) as WebhookEvent,
    }));
    const removed = records.filter((r) => r.removedAt !== null);
    for (const r of removed) {
      const events = sent.filter((d) => d.event.type === 'event_notifier.event' && d.id === r.id);
      const notices = sent.filter(
        (d) => d.event.type === 'event_notifier.event.removed' && d.event.data.recordId === r.id,
      );
      const removedAtSeconds = Math.floor((r.removedAt as Date).getTime() / 1000);
      for (const e of events) {
        assert.ok(e.signedAt <= removedAtSeconds, 'no event sent after its removal was known');
      }
      if (events.length === 0) {
        assert.equal(notices.length, 0, 'an event never sent gets no removal');
        continue;
      }
      assert.equal(new Set(notices.map((n) => n.id)).size, 1, 'one removal webhook (retries keep its webhook-id)');
      const first = Math.min(...events.map((e) => e.order));
      assert.ok(
        notices.every((n) => n.order > first && n.id !== r.id),
        'the removal comes after the event, with its own webhook-id',
      );
    }
    for (const r of records.filter((x) => x.removedAt === null)) {
      assert.ok(
        sent.some((d) => d.event.type === 'event_notifier.event' && d.id === r.id),
        'every live record delivered',
      );
    }
    return removed.length;
  }
});
