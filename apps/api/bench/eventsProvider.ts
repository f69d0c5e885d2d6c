// The provider section of bench:events: a backfill through the lab's provider proxy as a hosted provider behaves
// (80 ms per call, eth_getLogs capped at 2,000 blocks and 10,000 results, 50 requests/s), over a sparse history:
// clusters of events far apart on a chain presented `BENCH_STRETCH` times longer than anvil mined it (see
// stretchedChain.ts). Prints the backfill time next to the least the caps and the rate allow.

import { startAnvil } from '@mountain/testkit/anvil.ts';
import { deployEmitter, TRANSFER_EVENT } from '@mountain/testkit/eventEmitter.ts';
import { fewestGetLogs } from '@mountain/testkit/lab/getLogsCaps.ts';
import { startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { type AbiEvent, parseAbiItem } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import type { Db } from '#api/db/db.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { scanQueue } from '#api/eventNotifier/scanning/jobs.ts';
import { scanSubscription } from '#api/eventNotifier/scanning/scanner.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { createSubscription } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { checkWatch } from '#api/eventNotifier/watch.ts';
import type { Stop } from './benchDatabase.ts';
import { startStretchedChain } from './stretchedChain.ts';

const LATENCY_MS = 80;
const RATE = 50;
const CAPS = { style: 'infura', maxBlockRange: 2_000, maxResults: 10_000 } as const;
const STRETCH = BigInt(process.env.BENCH_STRETCH ?? 250);
/** Real blocks mined: clusters of events, the rest empty. */
const REAL_BLOCKS = Number(process.env.BENCH_PROVIDER_BLOCKS ?? 1_200);
/** Events per block of each cluster: the second one packs more than the results cap into one range cap. */
const CLUSTERS = [100, 1_500, 100, 100];
const CLUSTER_BLOCKS = 8;

export async function benchProviderBackfill(db: Db, masterKey: Buffer, projectId: number, stops: Stop[]) {
  const anvil = await startAnvil({ port: await freePort(), args: ['--gas-limit', '100000000'] });
  stops.push(() => anvil.stop());
  const emitter = await deployEmitter(anvil.url);
  const base = (await emitter.publicClient.getBlockNumber()) + 1n;
  let t = Date.now();
  // Clusters evenly spread, each CLUSTER_BLOCKS consecutive blocks of events, with a lone event between them.
  const gap = Math.floor((REAL_BLOCKS - CLUSTERS.length * (CLUSTER_BLOCKS + 1)) / CLUSTERS.length);
  let value = 0;
  for (const [c, perBlock] of CLUSTERS.entries()) {
    await emitter.mine(Math.floor(gap / 2));
    await emitter.emitTransfer(BigInt(c));
    await emitter.mine(gap - Math.floor(gap / 2));
    for (let b = 0; b < CLUSTER_BLOCKS; b++, value += perBlock) await emitter.emitMany(perBlock, value);
  }
  const realHead = await emitter.publicClient.getBlockNumber();
  const minedMs = Date.now() - t;

  const stretched = await startStretchedChain(anvil.url, base - 1n, STRETCH);
  stops.push(() => stretched.close());
  const proxy = await startProviderProxy(stretched.url, {
    latency: { ms: LATENCY_MS },
    rateLimit: { requestsPerSecond: RATE, style: 'infura' },
    getLogs: CAPS,
  });
  stops.push(() => proxy.close());
  const head = Number(stretched.presented(realHead));
  const from = Number(base);
  // The history's logs, read straight from anvil a few blocks at a time (an answer is at most 10 MB).
  const logs = [];
  for (let start = base; start <= realHead; start += 4n) {
    const end = start + 3n < realHead ? start + 3n : realHead;
    logs.push(
      ...(await emitter.publicClient.getLogs({
        address: emitter.address,
        event: parseAbiItem(TRANSFER_EVENT) as AbiEvent,
        fromBlock: start,
        toBlock: end,
      })),
    );
  }
  const logBlocks = logs.map((l) => Number(stretched.presented(l.blockNumber as bigint)));

  const settings = defaultEventNotifierSettings('development');
  const chains = createChains({ 1337: proxy.url }, { maxRps: { 1337: RATE } });
  const subscription = await createSubscription(db, masterKey, settings, projectId, {
    subscriptionName: 'Bench provider',
    networkId: 1337,
    watch: checkWatch({ address: emitter.address, formattedAbiEvent: TRANSFER_EVENT }),
    initialBlockNumber: from,
    scanInterval: 3_600,
  });
  t = Date.now();
  const outcome = await scanSubscription(
    {
      db,
      chains,
      settings: { ...settings, webhookTimeoutMs: defaultDeliverySettings().webhookTimeoutMs },
      queue: scanQueue,
    },
    subscription.id,
  );
  const elapsedMs = Date.now() - t;
  if (outcome.kind !== 'scanned' || outcome.toBlock !== head) {
    throw new Error(`provider backfill did not reach the head: ${JSON.stringify(outcome)}`);
  }
  const { rows } = await db.query<{ n: number; d: number }>(
    `SELECT count(*)::int AS n, count(DISTINCT (transaction_hash, log_index))::int AS d
       FROM event_notifier_records WHERE subscription_id = $1`,
    [subscription.id],
  );
  if (rows[0]?.n !== logs.length || rows[0]?.d !== logs.length) {
    throw new Error(`provider backfill stored ${rows[0]?.n} records (${rows[0]?.d} distinct), expected ${logs.length}`);
  }

  const fewest = fewestGetLogs(CAPS, { from, to: head, maxRange: settings.maxBlockRange, logBlocks });
  const stats = proxy.stats;
  const getLogs =
    (stats.served.eth_getLogs ?? 0) + (stats.refusals.getLogsRange ?? 0) + (stats.refusals.getLogsResults ?? 0);
  const calls =
    Object.values(stats.served).reduce((a, b) => a + b, 0) + Object.values(stats.refused).reduce((a, b) => a + b, 0);
  // The rate binds (8 ranges in flight at 80 ms each could ask 100/s): the fewest requests at 50/s, then the
  // last one's answer.
  const minimumMs = (fewest / RATE) * 1000 + LATENCY_MS;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `\nprovider backfill: ${logs.length} events in ${CLUSTERS.length} clusters over ${head - from + 1} blocks (anvil mined ${realHead - base + 1n} in ${seconds(minedMs)}, each presented ${STRETCH} blocks apart), through the provider proxy: ${LATENCY_MS} ms per call, ${CAPS.maxBlockRange}-block and ${CAPS.maxResults}-result eth_getLogs caps, ${RATE} requests/s:`,
  );
  console.log(
    `  eth_getLogs requests: ${getLogs} (the fewest that cover the range: ${fewest}); all calls: ${calls}; refused for the rate: ${stats.refusals.rateLimited ?? 0}, for the caps: ${(stats.refusals.getLogsRange ?? 0) + (stats.refusals.getLogsResults ?? 0)}`,
  );
  console.log(
    `  backfill: ${seconds(elapsedMs)}; the least the caps and rate allow: ${seconds(minimumMs)} (${fewest} requests ÷ ${RATE}/s + ${LATENCY_MS} ms); ratio ${(elapsedMs / minimumMs).toFixed(2)} (target ≤ 1.25)`,
  );
}
