// A subscription of three events of fifty contracts, with a filter on `to` and a condition on `value`, on a lab
// chain mined by hand: exactly the matching logs are recorded (checked against the chain's own logs, filtered here
// independently), each once, through a reorg that replaces some of them; update-subscription adds contracts while
// a scan runs, and the scan after it reads them; rewind-subscription scans again without sending twice, and with
// `redeliver` sends again. Scans and deliveries are called directly. Refusals: watchingRefusals.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deployFleet, FLEET_EVENTS, type Fleet, type FleetLog, type Shot } from '@mountain/testkit/eventFleet.ts';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { devAccount } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startJsonRpcProxy, startRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { WebhookEvent } from '@mountain/webhook-sdk';
import type { Address } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import { deliverDue } from '#api/eventNotifier/delivery/delivery.ts';
import { deliveryQueue } from '#api/eventNotifier/delivery/jobs.ts';
import { SCAN_LOCK_CLASS, scanQueue } from '#api/eventNotifier/scanning/jobs.ts';
import { scanSubscription } from '#api/eventNotifier/scanning/scanner.ts';
import type { RecordView } from '#api/eventNotifier/subscriptions/records.ts';
import { tryAdvisoryLock } from '#api/jobs/advisoryLock.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { createResponseValidator } from '#api-testing/openapi.ts';
import { FAST_SETTINGS } from '../helpers/eventNotifier.ts';

const WATCHED = 50;
const EXTRA = 5;
/** The recipients the filter accepts, and others. */
const TO = [devAccount(6).address, devAccount(7).address, devAccount(8).address];
const OTHERS = [devAccount(1).address, devAccount(9).address];
const MIN_VALUE = 100n;
const EVENT_NAMES = ['Transfer', 'Payment', 'Refund'];

/** A deterministic mix of shots: every member, every event (Approval too, which is not watched), every recipient. */
function shots(seed: number, count: number, members: number): Shot[] {
  // mulberry32: every bit of the draw varies (a linear congruential draw's low bits repeat every few calls).
  let state = seed >>> 0;
  const next = (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
  };
  return Array.from({ length: count }, () => ({
    member: next(members),
    kind: next(4) as Shot['kind'],
    to: next(2) === 0 ? (TO[next(TO.length)] as Address) : (OTHERS[next(OTHERS.length)] as Address),
    value: BigInt(next(200)),
  }));
}

describe('a subscription of several events and contracts, with a filter and a condition', () => {
  let chain: LabChain;
  let h: Harness;
  let key: string;
  let fleet: Fleet;
  let receiver: Receiver;
  let firstBlock: number;
  const validate = createResponseValidator();

  before(async () => {
    chain = await startLabChain({ port: await freePort() });
    fleet = await deployFleet(chain.url, WATCHED + EXTRA);
    await chain.pauseMining();
    firstBlock = Number(await chain.head()) + 1;
    h = await createHarness({ rpcUrls: { 1337: chain.url } });
    key = (await h.project('Watching')).apiKey;
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await h?.close();
    await chain?.stop();
  });

  const call = (operation: string, body: unknown) => h.call(operation, { headers: apiKey(key), body });
  const scan = async (id: string, chains = h.deps.chains) => {
    const outcome = await scanSubscription({ db: h.db, chains, settings: FAST_SETTINGS, queue: scanQueue }, id);
    assert.equal(outcome.kind, 'scanned', JSON.stringify(outcome));
    return outcome;
  };
  const deliver = (id: string) =>
    deliverDue({ db: h.db, masterKey: h.masterKey, settings: FAST_SETTINGS, queue: deliveryQueue }, id);
  const records = async (subscriptionId: string): Promise<RecordView[]> => {
    const res = await call('get-records', { subscriptionId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    validate.assertResponse('get-records', 200, res.body);
    return res.body.eventNotifierRecords;
  };
  const fire = async (list: Shot[]) => {
    await fleet.send(list);
    await chain.mineNow(1);
  };
  const keyOf = (r: { transactionHash: string; logIndex: number; blockHash: string | null }) =>
    `${r.blockHash} ${r.transactionHash} ${r.logIndex}`;
  /** What the live records must be: the chain's logs now, filtered here by the watch. */
  async function expected(members: Address[], fromBlock = firstBlock): Promise<FleetLog[]> {
    const watched = new Set(members.map((m) => m.toLowerCase()));
    const to = new Set(TO.map((a) => a.toLowerCase()));
    return (await fleet.logs(BigInt(fromBlock))).filter(
      (l) =>
        watched.has(l.address.toLowerCase()) &&
        EVENT_NAMES.includes(l.eventName) &&
        to.has(String(l.args.to).toLowerCase()) &&
        (l.args.value as bigint) >= MIN_VALUE,
    );
  }
  const live = (rows: RecordView[]) => rows.filter((r) => !r.removed);
  function assertExactly(rows: RecordView[], logs: FleetLog[]) {
    const keys = live(rows).map(keyOf);
    assert.equal(new Set(keys).size, keys.length, 'each log recorded once');
    assert.deepEqual(keys.sort(), logs.map(keyOf).sort());
    const byKey = new Map(logs.map((l) => [keyOf(l), l]));
    for (const r of live(rows)) {
      const log = byKey.get(keyOf(r)) as FleetLog;
      assert.equal(r.contractAddress, log.address);
      assert.equal(r.eventName, log.eventName);
      assert.equal(r.decodedLog.value, String(log.args.value));
    }
  }
  const webhooks = (subscriptionId: string) =>
    receiver.deliveries
      .map((d) => ({ id: d.headers['webhook-id'] as string, event: JSON.parse(d.body) as WebhookEvent }))
      .filter((d) => d.event.data.subscription.id === subscriptionId);
  const subscribe = async (members: Address[], extra: object = {}) => {
    const res = await call('create-subscription', {
      subscriptionName: 'Deposits',
      networkId: 1337,
      address: members[0],
      addresses: members.slice(1),
      formattedAbiEvent: FLEET_EVENTS[0],
      formattedAbiEvents: [FLEET_EVENTS[1], FLEET_EVENTS[2]],
      filters: { to: TO.map((a) => a.toLowerCase()) },
      conditions: [{ field: 'value', op: 'gte', value: String(MIN_VALUE) }],
      initialBlockNumber: firstBlock,
      scanInterval: 5,
      confirmations: 0,
      webhookURL: receiver.url,
      ...extra,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    validate.assertResponse('create-subscription', 201, res.body);
    return res.body.eventNotifierSubscription;
  };

  it('records exactly the matching logs, once each, through a reorg that replaces some of them', async () => {
    const members = fleet.members.slice(0, WATCHED);
    const subscription = await subscribe(members);
    assert.deepEqual(subscription.filters, { to: TO }, 'the filter values in their canonical (checksummed) form');
    assert.equal(subscription.addresses.length, WATCHED - 1);
    for (let i = 0; i < 6; i++) await fire(shots(i + 1, 60, WATCHED + EXTRA));
    await scan(subscription.id);
    const before = await records(subscription.id);
    const matching = await expected(members);
    assert.ok(matching.length > 40, `enough matching logs (${matching.length})`);
    assertExactly(before, matching);
    assert.deepEqual(new Set(before.map((r) => r.eventName)), new Set(EVENT_NAMES), 'every watched event recorded');
    assert.ok(new Set(before.map((r) => r.contractAddress)).size > 30, 'from many of the contracts');
    assert.equal((await deliver(subscription.id)).notified, matching.length);
    for (const { event } of webhooks(subscription.id)) {
      const record = before.find((r) => r.id === event.data.recordId) as RecordView;
      assert.equal(event.data.contractAddress, record.contractAddress);
      assert.equal(event.data.event.name, record.eventName);
      assert.equal(event.data.event.signature, record.eventSignature);
    }

    // The last two blocks replaced by two others holding other shots.
    const { removed } = await chain.reorg(2, {
      replacements: [7, 8].map((seed, i) => ({
        tx: { from: devAccount(5).address, to: fleet.fleet, data: fleet.fireData(shots(seed, 60, WATCHED)) },
        blockOffset: i,
      })),
    });
    assert.equal(removed.length, 2);
    await scan(subscription.id);
    const afterReorg = await records(subscription.id);
    assertExactly(afterReorg, await expected(members));
    const gone = afterReorg.filter((r) => r.removed);
    assert.ok(gone.length > 0, 'the replaced blocks’ records are removed');
    assert.ok(gone.every((r) => removed.some((b) => b.hash === r.blockHash)));
  });

  it('update-subscription while a scan runs: that scan reads as it started, the next one with the change', async () => {
    const members = fleet.members.slice(0, WATCHED);
    const extra = fleet.members.slice(WATCHED);
    const subscription = await subscribe(members, { initialBlockNumber: Number(await chain.head()) + 1 });
    for (let i = 0; i < 2; i++) await fire(shots(20 + i, 60, WATCHED + EXTRA));
    // The scan reads through a proxy that holds eth_getLogs, so the update lands while it runs.
    const proxy = await startRpcProxy(chain.url, await freePort());
    proxy.settings.getLogsDelayMs = 500;
    try {
      const running = scan(subscription.id, createChains({ 1337: proxy.url }));
      await waitFor(async () => {
        const { rows } = await h.db.query('SELECT scan_status FROM event_notifier_subscriptions WHERE id = $1', [
          subscription.id,
        ]);
        return rows[0]?.scan_status === 'scanning' ? true : undefined;
      });
      const updated = await call('update-subscription', {
        id: subscription.id,
        addresses: [...members.slice(1), ...extra],
        subscriptionName: 'Deposits, all',
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      validate.assertResponse('update-subscription', 200, updated.body);
      assert.equal(updated.body.eventNotifierSubscription.addresses.length, WATCHED + EXTRA - 1);
      const { toBlock } = (await running) as { toBlock: number };
      const scanned = await records(subscription.id);
      assertExactly(scanned, await expected(members, subscription.initialBlockNumber));
      assert.ok(scanned.every((r) => !extra.includes(r.contractAddress as Address)));

      // Half of them from the added contracts.
      for (let i = 0; i < 2; i++) {
        const mixed = shots(30 + i, 60, WATCHED + EXTRA).map((shot, k) =>
          k % 2 === 0 ? { ...shot, member: WATCHED + (shot.member % EXTRA) } : shot,
        );
        await fire(mixed);
      }
      await scan(subscription.id);
      const all = await records(subscription.id);
      const fromExtra = live(all).filter((r) => extra.includes(r.contractAddress as Address));
      assert.ok(fromExtra.length > 0, 'the added contracts are read from the next scan on');
      assert.ok(
        fromExtra.every((r) => r.blockNumber > toBlock),
        'not in the blocks the running scan had read',
      );
      assertExactly(
        all.filter((r) => r.blockNumber > toBlock),
        await expected([...members, ...extra], toBlock + 1),
      );
    } finally {
      await proxy.close();
    }
  });

  it('rewind-subscription: scans again without sending twice; with redeliver, sends again', async () => {
    const members = fleet.members.slice(0, 10);
    const subscription = await subscribe(members, { initialBlockNumber: Number(await chain.head()) + 1 });
    const start = subscription.initialBlockNumber as number;
    for (let i = 0; i < 3; i++) await fire(shots(40 + i, 60, 10));
    await scan(subscription.id);
    const first = await records(subscription.id);
    assert.equal((await deliver(subscription.id)).notified, first.length);
    const sentOnce = webhooks(subscription.id).length;

    // Widened (no condition), then rewound: the logs the condition left out become records; the others stay once.
    const widened = await call('update-subscription', { id: subscription.id, conditions: [] });
    assert.equal(widened.status, 200, JSON.stringify(widened.body));
    const rewound = await call('rewind-subscription', { id: subscription.id, fromBlock: start });
    assert.equal(rewound.status, 200, JSON.stringify(rewound.body));
    validate.assertResponse('rewind-subscription', 200, rewound.body);
    assert.equal(rewound.body.redeliveredCount, 0);
    assert.equal(rewound.body.eventNotifierSubscription.lastScannedBlock, start - 1);
    await scan(subscription.id);
    const again = await records(subscription.id);
    const wider = (await fleet.logs(BigInt(start))).filter(
      (l) =>
        members.some((m) => m.toLowerCase() === l.address.toLowerCase()) &&
        EVENT_NAMES.includes(l.eventName) &&
        TO.some((a) => a.toLowerCase() === String(l.args.to).toLowerCase()),
    );
    assert.ok(wider.length > first.length);
    assert.deepEqual(live(again).map(keyOf).sort(), wider.map(keyOf).sort());
    for (const r of first)
      assert.ok(
        again.some((a) => a.id === r.id && a.status === 'notified'),
        'kept, same id',
      );
    assert.equal((await deliver(subscription.id)).notified, wider.length - first.length, 'only the new ones sent');
    const ids = webhooks(subscription.id).map((w) => w.id);
    assert.equal(ids.length, sentOnce + wider.length - first.length);
    assert.equal(new Set(ids).size, ids.length, 'no webhook sent twice');

    // With redeliver, from the second block: every record from there is sent again, under its id.
    const from = start + 1;
    const redo = await call('rewind-subscription', { id: subscription.id, fromBlock: from, redeliver: true });
    assert.equal(redo.status, 200, JSON.stringify(redo.body));
    const resent = live(again).filter((r) => r.blockNumber >= from);
    assert.equal(redo.body.redeliveredCount, resent.length);
    await scan(subscription.id);
    assert.equal((await deliver(subscription.id)).notified, resent.length);
    const twice = webhooks(subscription.id)
      .slice(ids.length)
      .map((w) => w.id)
      .sort();
    assert.deepEqual(twice, resent.map((r) => r.id).sort());
    assert.equal((await records(subscription.id)).length, again.length, 'no record added by the rewind itself');
  });

  it('a rewind asked while a scan runs waits for it, and the next scan starts with it', async () => {
    const members = fleet.members.slice(0, 5);
    const subscription = await subscribe(members, { initialBlockNumber: Number(await chain.head()) + 1 });
    const start = subscription.initialBlockNumber as number;
    await fire(shots(60, 40, 5));
    await scan(subscription.id);
    const first = await records(subscription.id);
    assert.ok(first.length > 0);
    await fire(shots(61, 40, 5));
    const proxy = await startRpcProxy(chain.url, await freePort());
    proxy.settings.getLogsDelayMs = 500;
    try {
      // The scan holds the subscription's lock as the scan job does.
      const lock = await tryAdvisoryLock(h.db, [SCAN_LOCK_CLASS, subscription.id]);
      assert.ok(lock);
      const running = scan(subscription.id, createChains({ 1337: proxy.url })).finally(() => lock.release());
      await waitFor(async () => {
        const { rows } = await h.db.query('SELECT scan_status FROM event_notifier_subscriptions WHERE id = $1', [
          subscription.id,
        ]);
        return rows[0]?.scan_status === 'scanning' ? true : undefined;
      });
      const waiting = await call('rewind-subscription', { id: subscription.id, fromBlock: start, redeliver: true });
      assert.equal(waiting.status, 200, JSON.stringify(waiting.body));
      assert.equal(waiting.body.redeliveredCount, null);
      assert.equal(waiting.body.eventNotifierSubscription.rewindFromBlock, start);
      const { toBlock } = (await running) as { toBlock: number };
      const after = await call('get-subscriptions', {});
      const row = (
        after.body.eventNotifierSubscriptions as {
          id: string;
          rewindFromBlock: number | null;
          lastScannedBlock: number;
        }[]
      ).find((x) => x.id === subscription.id);
      assert.equal(row?.rewindFromBlock, start, 'still waiting once that scan ended');
      assert.equal(row?.lastScannedBlock, toBlock);
    } finally {
      await proxy.close();
    }
    // The next scan applies it first: nothing recorded twice, and the records delivered before are sent again.
    assert.equal((await deliver(subscription.id)).notified > 0, true);
    const { rows: sentBefore } = await h.db.query(
      `SELECT count(*)::int AS n FROM event_notifier_records WHERE subscription_id = $1 AND status = 'notified'`,
      [subscription.id],
    );
    await scan(subscription.id);
    const again = await records(subscription.id);
    assertExactly(again, await expected(members, start));
    const pending = again.filter((r) => r.status === 'scanned');
    assert.equal(pending.length, sentBefore[0]?.n, 'every record delivered before the rewind waits to be sent again');
    const view = await call('get-subscriptions', {});
    const now = (view.body.eventNotifierSubscriptions as { id: string; rewindFromBlock: number | null }[]).find(
      (x) => x.id === subscription.id,
    );
    assert.equal(now?.rewindFromBlock, null);
  });

  it('asks for the contracts in groups of EVENT_SCAN_MAX_ADDRESSES, in one batch per range, and merges them in order', async () => {
    const members = fleet.members.slice(0, 20);
    const subscription = await subscribe(members, { initialBlockNumber: Number(await chain.head()) + 1 });
    for (let i = 0; i < 2; i++) await fire(shots(50 + i, 80, 20));
    // A provider that refuses an address list longer than 7, and notes each batch's eth_getLogs lists.
    const lists: number[][] = [];
    const proxy = await startJsonRpcProxy(chain.url, await freePort(), (calls) => {
      const sizes = calls
        .filter((c) => c.method === 'eth_getLogs')
        .map((c) => {
          const { address } = c.params?.[0] as { address: string | string[] };
          return Array.isArray(address) ? address.length : 1;
        });
      if (sizes.length > 0) lists.push(sizes);
      return {
        intercept: (c) =>
          c.method === 'eth_getLogs' && ((c.params?.[0] as { address: string[] }).address?.length ?? 0) > 7
            ? { answer: { id: c.id, error: { code: -32602, message: 'too many addresses in filter' } } }
            : undefined,
      };
    });
    try {
      const outcome = await scanSubscription(
        {
          db: h.db,
          chains: createChains({ 1337: proxy.url }),
          settings: { ...FAST_SETTINGS, maxAddressesPerRequest: 7 },
          queue: scanQueue,
        },
        subscription.id,
      );
      assert.equal(outcome.kind, 'scanned', JSON.stringify(outcome));
      assert.ok(lists.length > 0);
      for (const batch of lists) assert.deepEqual(batch, [7, 7, 6], 'the 20 contracts in three lists, in one batch');
      const recorded = await records(subscription.id);
      assertExactly(recorded, await expected(members, subscription.initialBlockNumber));
      const order = recorded.map((r) => [r.blockNumber, r.logIndex]).reverse();
      assert.deepEqual(
        order,
        [...order].sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
      );
    } finally {
      await proxy.close();
    }
  });
});
