import type pg from 'pg';
import type { Address, PublicClient } from 'viem';
import { finalizedTag } from '#api/chain/canonicalBlocks.ts';
import { isRateLimited, rateLimitRetryAfterMs } from '#api/chain/chainErrors.ts';
import type { Chains } from '#api/chain/chains.ts';
import { DatabaseError, type Db, translateDbError, UniqueViolationError } from '#api/db/db.ts';
import { parseAbiEvent, toDecodedLog } from '#api/eventNotifier/abiEvent.ts';
import type { SubscriptionRow } from '#api/eventNotifier/rows.ts';
import { confirmationsOf, deliveryLeaseMs, type EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import type { QueueFor } from '#api/eventNotifier/subscriptionJob.ts';
import { causes } from '#api/lib/causes.ts';
import { followReorgs, pruneCheckpoints } from './canonicalRecords.ts';
import { isConnectionFailure, type LogChunk, readLogRanges } from './logRanges.ts';

/** What a scan queues, inside its own database transactions: the next scan, and deliveries. */
export interface ScanQueue {
  scan: QueueFor;
  delivery: QueueFor;
}

export interface ScannerDeps {
  db: Db;
  chains: Chains;
  settings: EventNotifierSettings;
  queue: ScanQueue;
  /** Aborted at shutdown: the scan stops after the range in hand (everything before it is stored). */
  signal?: AbortSignal;
}

/** What one scan did. */
export type ScanOutcome =
  | { kind: 'skipped' }
  | { kind: 'scanned'; fromBlock: number; toBlock: number; stored: number }
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
    const subscription = (
      await client.query<SubscriptionRow>('SELECT * FROM event_notifier_subscriptions WHERE id = $1', [subscriptionId])
    ).rows[0];
    if (!subscription?.scan_enabled) return { kind: 'skipped' };
    await client.query(`UPDATE event_notifier_subscriptions SET scan_status = 'scanning' WHERE id = $1`, [
      subscriptionId,
    ]);
    let outcome: ScanOutcome;
    try {
      outcome = await readAndStore(deps, client, subscription);
    } catch (error) {
      // A database error is not the chain's fault: the job fails and is retried, the status stays true.
      if (translateDbError(error) instanceof DatabaseError) throw error;
      outcome = { kind: 'failed', message: describeScanFailure(error, subscription.network_id) };
    }
    await finishScan(deps.queue, client, subscriptionId, outcome);
    return outcome;
  } catch (error) {
    clientError = error as Error;
    throw error;
  } finally {
    client.release(clientError);
  }
}

async function readAndStore(
  deps: ScannerDeps,
  client: pg.PoolClient,
  subscription: SubscriptionRow,
): Promise<ScanOutcome> {
  const chain = deps.chains.client(subscription.network_id);
  const event = parseAbiEvent(subscription.formatted_abi_event);
  const [head, tag] = await Promise.all([chain.getBlockNumber({ cacheTime: 0 }), finalizedTag(chain)]);
  const finalized = tag ?? Number(head) - (deps.settings.confirmations[subscription.network_id] ?? 0);
  const { lastScannedBlock } = await followReorgs(client, chain, subscription, {
    finalized,
    leaseMs: deliveryLeaseMs(deps.settings),
    queueDelivery: deps.queue.delivery,
  });
  const toBlock = head - BigInt(confirmationsOf(deps.settings, subscription));
  const fromBlock = BigInt(Math.max(subscription.initial_block_number, (lastScannedBlock ?? -1) + 1));
  let stored = 0;
  if (fromBlock <= toBlock) {
    const holdEndsAt =
      toBlock - fromBlock + 1n > BigInt(deps.settings.maxBlockRange)
        ? await startBackfill(deps.queue, client, subscription, deps.settings.backfillHoldMs)
        : 0;
    const ranges = readLogRanges(chain, {
      address: subscription.address as Address,
      event,
      fromBlock,
      toBlock,
      maxRange: deps.settings.maxBlockRange,
      checkpointAbove: BigInt(finalized),
      head,
    });
    // The next ranges are read from the chain while this one is written to the database.
    let next = ranges.next();
    let storedTo = fromBlock - 1n;
    for (;;) {
      const result = await next;
      if (result.done) break;
      next = ranges.next();
      next.catch(() => {});
      stored += await storeChunk(deps.queue, client, chain, subscription, result.value, holdEndsAt > Date.now());
      storedTo = result.value.toBlock;
      if (deps.signal?.aborted) {
        await ranges.return(undefined);
        return { kind: 'scanned', fromBlock: Number(fromBlock), toBlock: Number(storedTo), stored };
      }
    }
    await pruneCheckpoints(client, subscription.id, finalized);
    // The reading ends early where the node had no block yet (a node behind): the next scan goes on from there.
    return { kind: 'scanned', fromBlock: Number(fromBlock), toBlock: Number(storedTo), stored };
  }
  return { kind: 'scanned', fromBlock: Number(fromBlock), toBlock: Number(toBlock), stored };
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

/** Writes one range's records and advances `last_scanned_block` to its end, atomically. */
async function storeChunk(
  queue: ScanQueue,
  client: pg.PoolClient,
  chain: PublicClient,
  subscription: SubscriptionRow,
  chunk: LogChunk,
  deliveriesHeld: boolean,
): Promise<number> {
  const timestamps = await blockTimestamps(chain, chunk);
  // One JSON document for the whole range: serialised natively, far cheaper than n-element array parameters.
  const rows = chunk.logs.map((log) => ({
    t: Number(log.blockTimestamp ?? timestamps.get(log.blockNumber as bigint)),
    h: log.transactionHash,
    b: Number(log.blockNumber),
    bh: log.blockHash,
    ti: log.transactionIndex,
    li: log.logIndex,
    d: toDecodedLog(log.args),
  }));
  const write = (skipExisting: boolean) =>
    writeRange(queue, client, subscription, chunk, JSON.stringify(rows), skipExisting, deliveriesHeld);
  // A range is normally new: a plain INSERT, whose unique index still refuses a record stored before. Only a range
  // met again (its records stored, but not the progress past it) takes the slower path that skips existing records.
  try {
    return await write(false);
  } catch (error) {
    if (!(translateDbError(error) instanceof UniqueViolationError)) throw error;
  }
  return write(true);
}

/**
 * One transaction: the range's records (as one JSON document), then `last_scanned_block` and the checkpoint of the
 * range's last block (if it is above the finalized block).
 */
async function writeRange(
  queue: ScanQueue,
  client: pg.PoolClient,
  subscription: SubscriptionRow,
  { toBlock, toBlockHash }: LogChunk,
  document: string,
  skipExisting: boolean,
  deliveriesHeld: boolean,
): Promise<number> {
  await client.query('BEGIN');
  try {
    const inserted =
      document === '[]'
        ? { rowCount: 0 }
        : await client.query(
            `INSERT INTO event_notifier_records
               (subscription_id, block_timestamp, transaction_hash, block_number, block_hash, transaction_index,
                log_index, decoded_log, next_attempt_at)
             SELECT $1, to_timestamp(t), h, b, bh, ti, li, d, now()
               FROM json_to_recordset($2::json) AS u(t float8, h text, b int8, bh text, ti int4, li int4, d json)
             ${skipExisting ? SKIP_EXISTING : ''}`,
            [subscription.id, document],
          );
    if (toBlockHash) {
      await client.query(
        `INSERT INTO event_notifier_scan_checkpoints (subscription_id, block_number, block_hash) VALUES ($1, $2, $3)
         ON CONFLICT (subscription_id, block_number) DO UPDATE SET block_hash = excluded.block_hash`,
        [subscription.id, String(toBlock), toBlockHash],
      );
    }
    await client.query('UPDATE event_notifier_subscriptions SET last_scanned_block = $2 WHERE id = $1', [
      subscription.id,
      String(toBlock),
    ]);
    if ((inserted.rowCount ?? 0) > 0 && subscription.webhook_enabled && !deliveriesHeld) {
      await queue.delivery(client, subscription.id);
    }
    await client.query('COMMIT');
    return inserted.rowCount ?? 0;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * A range read again (after a crash between its records and its progress, or after a reorg) skips the records
 * it has: a live record of the same event in the same block, or one stored before block hashes were kept.
 */
const SKIP_EXISTING = `WHERE NOT EXISTS (
    SELECT 1 FROM event_notifier_records e
     WHERE e.subscription_id = $1 AND e.transaction_hash = u.h AND e.log_index = u.li AND e.block_hash IS NULL)
  ON CONFLICT (subscription_id, transaction_hash, log_index, block_hash) WHERE removal_of IS NULL AND removed_at IS NULL
  DO NOTHING`;

/** Timestamps of the blocks whose logs came without `blockTimestamp` (older nodes), fetched once per block. */
async function blockTimestamps(chain: PublicClient, chunk: LogChunk): Promise<Map<bigint, bigint>> {
  const missing = [...new Set(chunk.logs.filter((l) => l.blockTimestamp == null).map((l) => l.blockNumber as bigint))];
  const found = new Map<bigint, bigint>();
  for (let i = 0; i < missing.length; i += 16) {
    const blocks = await Promise.all(
      missing.slice(i, i + 16).map((blockNumber) => chain.getBlock({ blockNumber, includeTransactions: false })),
    );
    for (const block of blocks) found.set(block.number as bigint, block.timestamp);
  }
  return found;
}

async function finishScan(
  queue: ScanQueue,
  client: pg.PoolClient,
  subscriptionId: string,
  outcome: ScanOutcome,
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
              -- A steady cadence: the next scan is due one interval after this one was due (at once if late).
              -- A scan that ran before its time (the sweep re-queues a subscription it finds scanning) keeps the
              -- planned one, so that an extra scan never pushes the next one back.
              next_scan_at = CASE WHEN NOT scan_enabled THEN NULL
                WHEN next_scan_at > now() THEN next_scan_at
                ELSE greatest(now(), coalesce(next_scan_at, now()) + scan_interval * interval '1 second') END
        WHERE id = $1
        RETURNING next_scan_at, scan_enabled, webhook_enabled,
                  (SELECT backfill_started_at FROM before) IS NOT NULL AS backfilled`,
      [subscriptionId, failed ? 'failed' : 'idle', failed, failed ? outcome.message : null],
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
  if (e.name === 'NetworkNotConfiguredError' || e.name === 'AbiEventError') return e.message ?? String(error);
  if (isRateLimited(error)) {
    const wait = rateLimitRetryAfterMs(error);
    const asked = wait ? ` (it asks to wait ${Math.ceil(wait / 1000)} s)` : '';
    return `The RPC of network ${networkId} is rate limiting the platform${asked}; the scan is retried every scan interval.`;
  }
  if (isConnectionFailure(error)) {
    return `Could not reach the RPC of network ${networkId} (${rootCause(error)}); the scan is retried every scan interval.`;
  }
  const text = (e.shortMessage ?? e.message ?? String(error)).split('\n')[0] as string;
  return `The RPC of network ${networkId} failed: ${text.replace(/\b(https?|wss?):\/\/\S+/g, '<rpc>')}`.slice(0, 500);
}

/** The innermost error code of the chain (ECONNREFUSED…), or else the innermost message's first line. */
function rootCause(error: unknown): string {
  const chain = [...causes(error)];
  const code = chain.findLast((e) => typeof e.code === 'string')?.code as string | undefined;
  const message = chain.at(-1)?.message;
  return code ?? (typeof message === 'string' ? message : 'connection failed').split('\n')[0] ?? 'connection failed';
}
