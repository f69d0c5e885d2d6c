import type pg from 'pg';
import { finalizedTag } from '#api/chain/canonicalBlocks.ts';
import { isRateLimited, rateLimitRetryAfterMs, withoutRpcUrls } from '#api/chain/chainErrors.ts';
import { type Chains, NetworkNotConfiguredError } from '#api/chain/chains.ts';
import { DatabaseError, type Db, translateDbError } from '#api/db/db.ts';
import { type DeliverySettings, deliveryLeaseMs } from '#api/delivery/settings.ts';
import { AbiEventError } from '#api/eventNotifier/abiEvent.ts';
import type { SubscriptionRow } from '#api/eventNotifier/rows.ts';
import { confirmationsOf, type EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { watchOf } from '#api/eventNotifier/watch.ts';
import { causes } from '#api/lib/causes.ts';
import { followReorgs, pruneCheckpoints } from './canonicalRecords.ts';
import { isConnectionFailure, readLogRanges } from './logRanges.ts';
import { RangeStore, type ScanQueue } from './rangeStore.ts';
import { logQuery } from './readRange.ts';
import { applyRewind } from './rewind.ts';

export interface ScannerDeps {
  db: Db;
  chains: Chains;
  /** The event notifier's, and the webhook timeout that says how long a delivery holds the records it claimed. */
  settings: EventNotifierSettings & Pick<DeliverySettings, 'webhookTimeoutMs'>;
  queue: ScanQueue;
  /** Aborted at shutdown: the scan stops after the range in hand (everything before it is stored). */
  signal?: AbortSignal;
}

/** What one scan did. */
export type ScanOutcome =
  | { kind: 'skipped' }
  /** `returned`: the logs the node answered, of which `stored` were recorded (the rest failed a check here). */
  | { kind: 'scanned'; fromBlock: number; toBlock: number; stored: number; returned: number }
  | { kind: 'failed'; message: string };

/**
 * Scans one subscription (the `event-notifier:scan` job, which holds the subscription's lock): from
 * `max(initialBlockNumber, lastScannedBlock + 1)` to the head minus the network's confirmation depth. Each range's
 * records and the new `lastScannedBlock` are committed in one transaction, so a crash at any point neither loses
 * nor duplicates a record. Then the next scan is queued `scanInterval` later.
 */
export async function scanSubscription(deps: ScannerDeps, subscriptionId: string): Promise<ScanOutcome> {
  const client = await deps.db.pool.connect();
  let clientError: Error | undefined;
  try {
    const subscription = await startingRow(deps.queue, client, subscriptionId);
    if (!subscription?.scan_enabled) return { kind: 'skipped' };
    await client.query(`UPDATE event_notifier_subscriptions SET scan_status = 'scanning' WHERE id = $1`, [
      subscriptionId,
    ]);
    let outcome: ScanOutcome;
    // Where the next look for reorgs starts, once this scan's look has been made (kept if the reading fails after).
    const look: { floor?: number } = {};
    try {
      outcome = await readAndStore(deps, client, subscription, look);
    } catch (error) {
      // A database error is not the chain's fault: the job fails and is retried, the status stays true. Unless the
      // subscription was deleted while it was scanned (delete-subscription): its records' insert found it gone.
      if (translateDbError(error) instanceof DatabaseError) {
        const live = await client.query('SELECT 1 FROM event_notifier_subscriptions WHERE id = $1', [subscriptionId]);
        if (live.rows.length === 0) return { kind: 'skipped' };
        throw error;
      }
      outcome = { kind: 'failed', message: describeScanFailure(error, subscription.network_id) };
    }
    await finishScan(deps.queue, client, subscriptionId, outcome, look.floor);
    return outcome;
  } catch (error) {
    clientError = error as Error;
    throw error;
  } finally {
    client.release(clientError);
  }
}

/**
 * The subscription as the scan starts, after the rewind asked while the scan before it ran, if one waits (the scan
 * holds the subscription's lock: no other scan runs).
 */
async function startingRow(queue: ScanQueue, client: pg.PoolClient, id: string): Promise<SubscriptionRow | undefined> {
  const read = async () =>
    (await client.query<SubscriptionRow>('SELECT * FROM event_notifier_subscriptions WHERE id = $1', [id])).rows[0];
  const row = await read();
  if (row?.rewind_from_block == null) return row;
  await client.query('BEGIN');
  try {
    const sent = await applyRewind(client, id, row.rewind_from_block, row.rewind_redeliver);
    if (sent > 0 && row.webhook_enabled) await queue.delivery(client, id);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return read();
}

async function readAndStore(
  deps: ScannerDeps,
  client: pg.PoolClient,
  subscription: SubscriptionRow,
  look: { floor?: number },
): Promise<ScanOutcome> {
  const chain = deps.chains.client(subscription.network_id);
  const query = logQuery(watchOf(subscription), deps.settings.maxAddressesPerRequest);
  const [head, tag] = await Promise.all([chain.getBlockNumber({ cacheTime: 0 }), finalizedTag(chain)]);
  const finalized = tag ?? Number(head) - (deps.settings.confirmations[subscription.network_id] ?? 0);
  const { lastScannedBlock, floor } = await followReorgs(client, chain, subscription, {
    finalized,
    leaseMs: deliveryLeaseMs(deps.settings),
    queueDelivery: deps.queue.delivery,
  });
  look.floor = floor;
  const toBlock = head - BigInt(confirmationsOf(deps.settings, subscription));
  const fromBlock = BigInt(Math.max(subscription.initial_block_number, (lastScannedBlock ?? -1) + 1));
  if (fromBlock <= toBlock) {
    const holdEndsAt =
      toBlock - fromBlock + 1n > BigInt(deps.settings.maxBlockRange)
        ? await startBackfill(deps.queue, client, subscription, deps.settings.backfillHoldMs)
        : 0;
    const ranges = readLogRanges(chain, {
      query,
      fromBlock,
      toBlock,
      maxRange: deps.settings.maxBlockRange,
      checkpointAbove: BigInt(finalized),
      head,
    });
    // The next ranges are read from the chain while the ranges before them are written to the database.
    const store = new RangeStore(
      { db: deps.db, queue: deps.queue, chain, client, subscription, deliveriesHeld: () => holdEndsAt > Date.now() },
      fromBlock,
    );
    try {
      for await (const chunk of ranges) {
        if (!(await store.add(chunk)) || deps.signal?.aborted) break;
      }
    } finally {
      // Every write in flight ends before the connections go back (a read's failure is thrown after them).
      await store.finish().finally(() => store.release());
    }
    const scanned = {
      kind: 'scanned' as const,
      fromBlock: Number(fromBlock),
      toBlock: Number(store.storedTo),
      stored: store.stored,
      returned: query.counts.returned,
    };
    if (deps.signal?.aborted) return scanned;
    await pruneCheckpoints(client, subscription.id, finalized);
    // The reading ends early where the node had no block yet (a node behind): the next scan goes on from there.
    return scanned;
  }
  return { kind: 'scanned', fromBlock: Number(fromBlock), toBlock: Number(toBlock), stored: 0, returned: 0 };
}

/**
 * Marks the subscription as backfilling (keeping the start of a backfill an interrupted scan left marked). While
 * the hold lasts, its webhooks wait: the scan queues no delivery per range, only one for when the hold ends (for a
 * scan that outlasts it) and one when the scan ends (finishScan). Returns when the hold ends (0: no hold).
 */
async function startBackfill(
  queue: ScanQueue,
  client: pg.PoolClient,
  subscription: SubscriptionRow,
  holdMs: number,
): Promise<number> {
  const { rows } = await client.query<{ hold_ends: Date; held: boolean }>(
    `UPDATE event_notifier_subscriptions SET backfill_started_at = coalesce(backfill_started_at, now())
      WHERE id = $1
      RETURNING backfill_started_at + $2 * interval '1 millisecond' AS hold_ends,
                backfill_started_at + $2 * interval '1 millisecond' > now() AS held`,
    [subscription.id, holdMs],
  );
  const row = rows[0];
  if (!row?.held) return 0;
  if (subscription.webhook_enabled) await queue.delivery(client, subscription.id, { runAt: row.hold_ends });
  return row.hold_ends.getTime();
}

async function finishScan(
  queue: ScanQueue,
  client: pg.PoolClient,
  subscriptionId: string,
  outcome: ScanOutcome,
  reorgFloor: number | undefined,
): Promise<void> {
  const failed = outcome.kind === 'failed';
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<{
      next_scan_at: Date;
      scan_enabled: boolean;
      webhook_enabled: boolean;
      backfilled: boolean;
    }>(
      `WITH before AS (SELECT backfill_started_at FROM event_notifier_subscriptions WHERE id = $1)
       UPDATE event_notifier_subscriptions
          SET scan_status = $2,
              last_scanned_at = CASE WHEN $3 THEN last_scanned_at ELSE now() END,
              last_scan_failure_message = $4,
              backfill_started_at = NULL,
              reorg_floor_block = coalesce($5, reorg_floor_block),
              -- A steady cadence: the next scan is due one interval after this one was due (at once if late).
              -- A scan that ran before its time (the sweep re-queues a subscription it finds scanning) keeps the
              -- planned one, so that an extra scan never pushes the next one back.
              -- A rewind asked while this scan ran is the next scan's, at once.
              next_scan_at = CASE WHEN NOT scan_enabled THEN NULL
                WHEN rewind_from_block IS NOT NULL THEN now()
                WHEN next_scan_at > now() THEN next_scan_at
                ELSE greatest(now(), coalesce(next_scan_at, now()) + scan_interval * interval '1 second') END
        WHERE id = $1
        RETURNING next_scan_at, scan_enabled, webhook_enabled,
                  (SELECT backfill_started_at FROM before) IS NOT NULL AS backfilled`,
      [subscriptionId, failed ? 'failed' : 'idle', failed, failed ? outcome.message : null, reorgFloor ?? null],
    );
    const row = rows[0];
    if (row?.scan_enabled) await queue.scan(client, subscriptionId, { runAt: row.next_scan_at });
    // The backfill's webhooks waited for it: send them now.
    if (row?.backfilled && row.webhook_enabled) await queue.delivery(client, subscriptionId);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** A message for `lastScanFailureMessage`: readable, and never the RPC URL (it may hold a provider key). */
export function describeScanFailure(error: unknown, networkId: number): string {
  const e = error as { name?: string; shortMessage?: string; message?: string };
  if (error instanceof NetworkNotConfiguredError || error instanceof AbiEventError) return error.message;
  if (isRateLimited(error)) {
    const wait = rateLimitRetryAfterMs(error);
    const asked = wait ? ` (it asks to wait ${Math.ceil(wait / 1000)} s)` : '';
    return `The RPC of network ${networkId} is rate limiting the platform${asked}; the scan is retried every scan interval.`;
  }
  if (isConnectionFailure(error)) {
    return `Could not reach the RPC of network ${networkId} (${rootCause(error)}); the scan is retried every scan interval.`;
  }
  const text = (e.shortMessage ?? e.message ?? String(error)).split('\n')[0] as string;
  return `The RPC of network ${networkId} failed: ${withoutRpcUrls(text)}`.slice(0, 500);
}

/** The innermost error code of the chain (ECONNREFUSED…), or else the innermost message's first line. */
function rootCause(error: unknown): string {
  const chain = [...causes(error)];
  const code = chain.findLast((e) => typeof e.code === 'string')?.code as string | undefined;
  const message = chain.at(-1)?.message;
  return code ?? (typeof message === 'string' ? message : 'connection failed').split('\n')[0] ?? 'connection failed';
}
