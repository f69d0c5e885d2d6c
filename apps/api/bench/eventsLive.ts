// The live section of `npm run bench:events` (also runs alone: `node --import tsx bench/eventsLive.ts` in
// apps/api): on a lab chain with 1 s blocks (`finalized` 16 blocks behind), one subscription with
// `confirmations: 0` and a 5 s scan interval, a worker in this process, a webhook receiver on loopback. Transfers
// are emitted 300–1,000 ms apart for BENCH_LIVE_SECONDS (40), and every 10 s a reorg of depth 4 to 6 (deeper than
// the blocks one scan interval adds, so it takes back recorded events) drops the newest blocks. Prints the p95 from a block first seen as the head to the webhook of its event (target ≤ scan
// interval + 1 s), and from a reorg to the removal webhook of each delivered event it took back (target ≤ scan
// interval + 2 s). Exits 1 when a live record is not on the canonical chain or a delivered event that a reorg took
// back got no removal webhook.
import { pathToFileURL } from 'node:url';
import { deployEmitter, TRANSFER_EVENT, transferCall } from '@mountain/testkit/eventEmitter.ts';
import { startLabChain } from '@mountain/testkit/lab/chain.ts';
import { devAccount, devWallet } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { WebhookEvent } from '@mountain/webhook-sdk';
import type { Hex } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { createSubscription } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { checkWatch } from '#api/eventNotifier/watch.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import { type Stop, startBenchDatabase } from './benchDatabase.ts';

const SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 40);
const SCAN_INTERVAL = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Runs the section; answers false when a record contradicts the canonical chain or a removal was not sent. */
export async function liveReorgSection(): Promise<boolean> {
  const stops: Stop[] = [];
  try {
    const chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 1, slotsInAnEpoch: 8 });
    stops.push(() => chain.stop());
    const emitter = (await deployEmitter(chain.url)).address;
    const { db, masterKey, keys, project } = await startBenchDatabase('events-live', stops);
    const receiver = await startReceiver();
    stops.push(() => receiver.close());
    const settings = defaultEventNotifierSettings('development');
    const stop = new AbortController();
    const worker = createWorker({
      deps: {
        db,
        chains: createChains({ 1337: chain.url }),
        signers: createSignerProvider(keys),
        masterKey,
        signal: stop.signal,
        eventNotifier: settings,
        // The receiver listens on loopback.
        delivery: defaultDeliverySettings('loopback'),
      },
    });
    await worker.start();
    stops.push(async () => {
      stop.abort();
      await worker.stop();
    });

    // When each block was first seen as the head, by hash.
    const seen = new Map<Hex, number>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const head = await chain.block('latest').catch(() => null);
        if (head && !seen.has(head.hash)) seen.set(head.hash, Date.now());
        await sleep(20);
      }
    })();
    stops.push(async () => {
      watching = false;
      await watcher;
    });

    const subscription = await createSubscription(db, masterKey, settings, project.id, {
      subscriptionName: 'Live',
      networkId: 1337,
      watch: checkWatch({ address: emitter, formattedAbiEvent: TRANSFER_EVENT }),
      initialBlockNumber: Number(await chain.head()) + 1,
      scanInterval: SCAN_INTERVAL,
      confirmations: 0,
      webhookURL: receiver.url,
    });
    const account = devAccount(2);
    const wallet = devWallet(chain.url, account);
    const reorgs: { at: number; blocks: Set<number> }[] = [];
    const started = Date.now();
    let value = 0n;
    let nextReorg = started + 10_000;
    while (Date.now() - started < SECONDS * 1000) {
      await wallet.sendTransaction({
        to: emitter,
        data: transferCall(devAccount(3).address, ++value),
      });
      await sleep(300 + Math.random() * 700);
      if (Date.now() >= nextReorg) {
        const depth = 4 + (reorgs.length % 3);
        const r = await chain.reorg(depth);
        reorgs.push({ at: Date.now(), blocks: new Set(r.removed.map((b) => Number(b.number))) });
        nextReorg += 10_000;
      }
    }
    await sleep((SCAN_INTERVAL + 8) * 1000);

    const { rows: records } = await db.query<{ id: string; block: number; hash: Hex; removed: boolean }>(
      `SELECT id, block_number::int AS block, block_hash AS hash, removed_at IS NOT NULL AS removed
         FROM event_notifier_records WHERE subscription_id = $1 AND removal_of IS NULL`,
      [subscription.id],
    );
    const sent = receiver.deliveries.map((d) => ({
      at: d.receivedAt,
      id: d.headers['webhook-id'] as string,
      event: JSON.parse(d.body) as WebhookEvent,
    }));
    const firstEvent = new Map<string, number>();
    for (const d of sent) {
      if (d.event.type === 'event_notifier.event' && !firstEvent.has(d.id)) firstEvent.set(d.id, d.at);
    }
    const toWebhook = records.flatMap((r) => {
      const blockSeen = seen.get(r.hash);
      const at = firstEvent.get(r.id);
      return blockSeen !== undefined && at !== undefined && !r.removed ? [at - blockSeen] : [];
    });
    const removals = sent.filter((d) => d.event.type === 'event_notifier.event.removed');
    const toRemoval = removals.flatMap((d) => {
      const reorg = reorgs.findLast((r) => r.at <= d.at && r.blocks.has(d.event.data.blockNumber));
      return reorg ? [d.at - reorg.at] : [];
    });
    // Every live record's block is canonical; every delivered record that was removed got its removal webhook.
    const offChain: string[] = [];
    for (const r of records.filter((x) => !x.removed)) {
      const block = await chain.block(r.block);
      if (block?.hash !== r.hash) offChain.push(r.id);
    }
    const noticed = new Set(removals.map((d) => d.event.data.recordId));
    const unnoticed = records.filter((r) => r.removed && firstEvent.has(r.id) && !noticed.has(r.id));

    const p95 = percentile(toWebhook, 95);
    const removalP95 = percentile(toRemoval, 95);
    console.log(
      `\nlive on 1 s blocks, confirmations 0, scan interval ${SCAN_INTERVAL} s, ${SECONDS} s of Transfers and a reorg of depth 4–6 every 10 s:`,
    );
    console.log(
      `  ${toWebhook.length} events delivered: block seen → webhook p50 ${s(percentile(toWebhook, 50))}, p95 ${s(p95)} (target ≤ ${SCAN_INTERVAL + 1} s: ${p95 <= (SCAN_INTERVAL + 1) * 1000 ? 'PASS' : 'short'})`,
    );
    console.log(
      `  ${reorgs.length} reorgs took back ${records.filter((r) => r.removed).length} records (${toRemoval.length} delivered): reorg → removal webhook p50 ${s(percentile(toRemoval, 50))}, p95 ${s(removalP95)} (target ≤ ${SCAN_INTERVAL + 2} s: ${removalP95 <= (SCAN_INTERVAL + 2) * 1000 ? 'PASS' : 'short'})`,
    );
    console.log(
      `  live records off the canonical chain: ${offChain.length}; removed after delivery without a removal webhook: ${unnoticed.length}`,
    );
    return offChain.length === 0 && unnoticed.length === 0;
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => {});
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const deadline = setTimeout(() => {
    console.error('the live events section did not finish within 3 minutes');
    process.exit(1);
  }, 180_000);
  deadline.unref();
  const ok = await liveReorgSection().catch((error) => {
    console.error(error);
    return false;
  });
  process.exit(ok ? 0 : 1);
}
