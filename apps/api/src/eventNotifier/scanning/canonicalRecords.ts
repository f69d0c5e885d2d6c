import type pg from 'pg';
import type { Hex, PublicClient } from 'viem';
import { canonicalHashes } from '#api/chain/canonicalBlocks.ts';
import type { SubscriptionRow } from '#api/eventNotifier/rows.ts';
import type { QueueFor } from '#api/eventNotifier/subscriptionJob.ts';

/** Checkpoints kept per subscription, and blocks of live records looked at per scan. */
const CHECKPOINTS_KEPT = 256;
const RECORD_BLOCKS_PER_LOOK = 1_000;

interface StoredBlock {
  number: number;
  hash: Hex;
}

/** What a look at the scanned blocks found: where the scan goes on from, and what it took back. */
export interface ReorgOutcome {
  lastScannedBlock: number | null;
  /** Records whose block left the canonical chain, marked removed. */
  removed: number;
  /** Removal notices queued for the removed records that were delivered, or in delivery. */
  notices: number;
  /** Where the next look starts (`reorg_floor_block`, written when the scan ends). */
  floor: number;
}

/**
 * Before a scan: are the blocks the subscription scanned above the finalized block still the canonical ones? It
 * compares the chain with the hashes it kept (the last block of each range read above the finalized block, and the
 * block of each live record there). "The finalized block" is the one as of the previous look (`reorg_floor_block`):
 * a block a reorg replaced after that look may be final by now, and its old records must still go. On a mismatch,
 * the fork point is the newest kept block below it that the chain still has (else that floor); then, in one
 * database transaction:
 * - the records above the fork point whose block is gone are marked removed (`removed_at`); one never attempted is
 *   never delivered, and one delivered, or in delivery, gets a removal notice (a row with `removal_of`), sent after
 *   its attempt in flight has ended;
 * - the checkpoints above the fork point go, and `last_scanned_block` moves back to it, so that the scan reads the
 *   new branch's blocks and records their events (once: a live record is unique per event and block).
 * A block the node does not have (a lagging node, a chain shorter for now) decides nothing until a later scan.
 */
export async function followReorgs(
  client: pg.PoolClient,
  chain: PublicClient,
  subscription: SubscriptionRow,
  options: { finalized: number; leaseMs: number; queueDelivery: QueueFor },
): Promise<ReorgOutcome> {
  const floor = Math.min(subscription.reorg_floor_block ?? options.finalized, options.finalized);
  const [checkpoints, recordBlocks] = await Promise.all([
    storedBlocks(
      client,
      `SELECT block_number::float8 AS number, block_hash AS hash FROM event_notifier_scan_checkpoints
        WHERE subscription_id = $1 ORDER BY block_number DESC LIMIT ${CHECKPOINTS_KEPT}`,
      [subscription.id],
    ),
    storedBlocks(
      client,
      `SELECT DISTINCT block_number::float8 AS number, block_hash AS hash FROM event_notifier_records
        WHERE subscription_id = $1 AND block_number > $2 AND block_hash IS NOT NULL
          AND removal_of IS NULL AND removed_at IS NULL
        ORDER BY 1 LIMIT ${RECORD_BLOCKS_PER_LOOK}`,
      [subscription.id, floor],
    ),
  ]);
  // The next look starts from today's finalized block, or below the records this look had no room to compare.
  const lastCompared = recordBlocks.at(-1)?.number;
  const nextFloor =
    recordBlocks.length === RECORD_BLOCKS_PER_LOOK && lastCompared !== undefined
      ? Math.min(options.finalized, lastCompared - 1)
      : options.finalized;
  const unchanged = { lastScannedBlock: subscription.last_scanned_block, removed: 0, notices: 0, floor: nextFloor };
  if (checkpoints.length === 0 && recordBlocks.length === 0) return unchanged;
  const canonical = await canonicalHashes(
    chain,
    [...checkpoints, ...recordBlocks].map((b) => b.number),
  );
  const differs = (b: StoredBlock) => {
    const now = canonical.get(b.number);
    return now !== undefined && now !== b.hash;
  };
  const changed = [...checkpoints, ...recordBlocks].filter(differs);
  if (changed.length === 0) return unchanged;
  const lowestChanged = Math.min(...changed.map((b) => b.number));
  // Without a kept block below the change that the chain still has, the scan goes back to the floor.
  const anchor = checkpoints.find((c) => c.number < lowestChanged && canonical.get(c.number) === c.hash);
  const forkPoint = Math.max(
    Math.min(anchor?.number ?? floor, lowestChanged - 1),
    subscription.initial_block_number - 1,
  );
  const gone = recordBlocks.filter((b) => b.number > forkPoint && differs(b));

  await client.query('BEGIN');
  try {
    const { rows } = await client.query<{ removed: number; notices: number }>(
      `WITH removed AS (
         UPDATE event_notifier_records r
            SET removed_at = now(), updated_at = now(),
                -- Retries of an attempt that failed stop: its removal notice is what follows.
                status = CASE WHEN r.status = 'scanned' AND r.notification_failure_count > 0 AND NOT ${IN_FLIGHT}
                              THEN 'failed' ELSE r.status END,
                status_changed_at = CASE WHEN r.status = 'scanned' AND r.notification_failure_count > 0
                                          AND NOT ${IN_FLIGHT} THEN now() ELSE r.status_changed_at END,
                next_attempt_at = CASE WHEN ${IN_FLIGHT} THEN r.next_attempt_at END
           FROM unnest($2::bigint[], $3::text[]) AS b(number, hash)
          WHERE r.subscription_id = $1 AND r.block_number = b.number AND r.block_hash = b.hash
            AND r.removal_of IS NULL AND r.removed_at IS NULL
         RETURNING r.*, (r.status <> 'scanned' OR r.notification_failure_count > 0 OR ${IN_FLIGHT}) AS attempted
       ),
       notices AS (
         INSERT INTO event_notifier_records
           (subscription_id, removal_of, block_timestamp, transaction_hash, block_number, block_hash,
            transaction_index, log_index, decoded_log, next_attempt_at, contract_address, event_signature)
         SELECT subscription_id, id, block_timestamp, transaction_hash, block_number, block_hash,
                transaction_index, log_index, decoded_log, now(), contract_address, event_signature
           FROM removed WHERE attempted
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM removed)::int AS removed, (SELECT count(*) FROM notices)::int AS notices`,
      [subscription.id, gone.map((b) => b.number), gone.map((b) => b.hash), options.leaseMs],
    );
    await client.query('DELETE FROM event_notifier_scan_checkpoints WHERE subscription_id = $1 AND block_number > $2', [
      subscription.id,
      forkPoint,
    ]);
    await client.query(
      'UPDATE event_notifier_subscriptions SET last_scanned_block = $2 WHERE id = $1 AND last_scanned_block > $2',
      [subscription.id, forkPoint],
    );
    const outcome = { removed: rows[0]?.removed ?? 0, notices: rows[0]?.notices ?? 0 };
    if (outcome.notices > 0 && subscription.webhook_enabled) await options.queueDelivery(client, subscription.id);
    await client.query('COMMIT');
    const lastScannedBlock =
      subscription.last_scanned_block === null ? null : Math.min(subscription.last_scanned_block, forkPoint);
    return { lastScannedBlock, ...outcome, floor: nextFloor };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** A delivery attempt holds the record (claimed less than the lease ago); $4 is the lease in ms. */
const IN_FLIGHT = `coalesce(r.claimed_at > now() - $4 * interval '1 millisecond', false)`;

/**
 * After a scan: the checkpoints below the newest one at or below the finalized block go (no reorg reaches them),
 * and so do all but the newest CHECKPOINTS_KEPT.
 */
export async function pruneCheckpoints(client: pg.PoolClient, subscriptionId: string, finalized: number) {
  await client.query(
    `DELETE FROM event_notifier_scan_checkpoints c
      WHERE c.subscription_id = $1
        AND (c.block_number < (SELECT max(block_number) FROM event_notifier_scan_checkpoints
                                WHERE subscription_id = $1 AND block_number <= $2)
          OR c.block_number < (SELECT block_number FROM event_notifier_scan_checkpoints WHERE subscription_id = $1
                                ORDER BY block_number DESC OFFSET ${CHECKPOINTS_KEPT - 1} LIMIT 1))`,
    [subscriptionId, finalized],
  );
}

async function storedBlocks(client: pg.PoolClient, sql: string, params: unknown[]): Promise<StoredBlock[]> {
  return (await client.query<StoredBlock>(sql, params)).rows;
}
