import type pg from 'pg';
import type { PublicClient } from 'viem';
import { type Db, translateDbError, UniqueViolationError } from '#api/db/db.ts';
import type { SubscriptionRow } from '#api/eventNotifier/rows.ts';
import type { QueueFor } from '#api/eventNotifier/subscriptionJob.ts';
import type { DecodedLog, LogChunk } from './logRanges.ts';
import { copyRecords } from './recordCopy.ts';

/** What a scan queues, inside its own database transactions: the next scan, and deliveries. */
export interface ScanQueue {
  scan: QueueFor;
  delivery: QueueFor;
}

/** Ranges written at once, each on its own connection. */
const WRITERS = 2;

/** A range's write gave up because the range before it was not stored (that range's error is the one reported). */
class EarlierRangeNotStored extends Error {}

/**
 * Stores a scan's ranges in block order. Each range's records, its checkpoint and the new `last_scanned_block` are
 * one transaction, so a crash at any point neither loses nor duplicates a record. Ranges are written two at a time,
 * on two connections: while a range's records are inserted, the next range inserts its own on the other connection,
 * and then waits for the first to commit before it moves `last_scanned_block` and commits. Progress therefore moves
 * in block order, and a range whose predecessor failed rolls back. A scan of one range uses one connection, and so
 * does a scan that finds the pool without a connection to spare.
 */
export class RangeStore {
  stored = 0;
  storedTo: bigint;
  readonly #writes: { done: Promise<number>; toBlock: bigint }[] = [];
  readonly #connections: (pg.PoolClient | undefined)[];
  #written = 0;
  /** Writes at once: WRITERS, or 1 when the pool had no connection to spare. */
  #width = WRITERS;
  #previous: Promise<unknown> = Promise.resolve();
  /** The first range that failed: nothing after it is written. */
  #error: { cause: unknown } | undefined;

  constructor(
    private readonly deps: RangeStoreDeps,
    fromBlock: bigint,
  ) {
    this.storedTo = fromBlock - 1n;
    this.#connections = [deps.client, undefined];
  }

  /**
   * Starts writing `chunk` (after the oldest write in flight has ended, if both connections are busy). False once a
   * range has failed: then nothing more is written, and `finish` throws that range's error.
   */
  async add(chunk: LogChunk): Promise<boolean> {
    if (this.#written === 1) {
      this.#connections[1] = await this.#spareConnection();
      if (!this.#connections[1]) this.#width = 1;
    }
    if (this.#writes.length >= this.#width) await this.#settleOldest();
    if (this.#error) return false;
    const client = this.#connections[this.#written++ % this.#width] as pg.PoolClient;
    const done = storeChunk(this.deps, client, chunk, this.#previous);
    done.catch(() => {}); // awaited in turn by #settleOldest
    this.#previous = done;
    this.#writes.push({ done, toBlock: chunk.toBlock });
    return true;
  }

  /** Waits for every write in flight; then throws the first range's failure, if any. */
  async finish(): Promise<void> {
    while (this.#writes.length > 0) await this.#settleOldest();
    if (this.#error) throw this.#error.cause;
  }

  /** Gives back the second connection (discarded after a failure). Call after `finish`. */
  release(): void {
    this.#connections[1]?.release(this.#error ? new Error('a range write failed') : undefined);
    this.#connections[1] = undefined;
  }

  /**
   * A second connection, only when the pool can give one at once: a scan never waits for one while holding
   * another (scans doing so could hold every connection of the pool, each waiting for one more).
   */
  async #spareConnection(): Promise<pg.PoolClient | undefined> {
    const { pool } = this.deps.db;
    if (pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10)) return undefined;
    return pool.connect();
  }

  async #settleOldest() {
    const write = this.#writes.shift();
    if (!write) return;
    try {
      this.stored += await write.done;
      this.storedTo = write.toBlock;
    } catch (error) {
      this.#error ??= { cause: error };
    }
  }
}

interface RangeStoreDeps {
  db: Db;
  queue: ScanQueue;
  chain: PublicClient;
  /** The scan's connection; a second one is taken from the pool when a second range is ready. */
  client: pg.PoolClient;
  subscription: SubscriptionRow;
  /** Whether the backfill's hold on deliveries lasts (then a range queues none). */
  deliveriesHeld: () => boolean;
}

async function storeChunk(
  deps: RangeStoreDeps,
  client: pg.PoolClient,
  chunk: LogChunk,
  after: Promise<unknown>,
): Promise<number> {
  const timestamps = await blockTimestamps(deps.chain, chunk);
  const timestampOf = (log: DecodedLog) => (log.blockTimestamp ?? timestamps.get(log.blockNumber)) as bigint;
  const { id } = deps.subscription;
  const write = (insert: Insert) => writeRange(deps, client, chunk, insert, after);
  if (chunk.logs.length === 0) return write(async () => 0);
  // A range is normally new: copied, and the unique index still refuses a record stored before. Only a range met
  // again (its records stored, but not the progress past it) takes the slower INSERT that skips existing records.
  try {
    return await write((c) => copyRecords(c, id, chunk.logs, timestampOf));
  } catch (error) {
    if (!(translateDbError(error) instanceof UniqueViolationError)) throw error;
  }
  return write((c) => insertSkippingExisting(c, id, chunk.logs, timestampOf));
}

/** Inserts a range's records, in the range's transaction; returns how many were inserted. */
type Insert = (client: pg.PoolClient) => Promise<number>;

/**
 * One transaction: the range's records; then, once the range before it has committed (`after`),
 * `last_scanned_block` and the checkpoint of the range's last block (if it is above the finalized block).
 */
async function writeRange(
  { queue, subscription, deliveriesHeld }: RangeStoreDeps,
  client: pg.PoolClient,
  { toBlock, toBlockHash }: LogChunk,
  insert: Insert,
  after: Promise<unknown>,
): Promise<number> {
  await client.query('BEGIN');
  try {
    const inserted = await insert(client);
    await after.catch(() => {
      throw new EarlierRangeNotStored(`the range before block ${toBlock} was not stored`);
    });
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
    if (inserted > 0 && subscription.webhook_enabled && !deliveriesHeld()) {
      await queue.delivery(client, subscription.id);
    }
    await client.query('COMMIT');
    return inserted;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * A range read again (after a crash between its records and its progress, or after a reorg) skips the records
 * it has: a live record of the same event in the same block, or one stored before block hashes were kept. The
 * records go as one JSON document, serialised natively (far cheaper than n-element array parameters).
 */
async function insertSkippingExisting(
  client: pg.PoolClient,
  subscriptionId: string,
  logs: readonly DecodedLog[],
  timestampOf: (log: DecodedLog) => bigint,
): Promise<number> {
  const document = JSON.stringify(
    logs.map((log) => ({
      t: Number(timestampOf(log)),
      h: log.transactionHash,
      b: Number(log.blockNumber),
      bh: log.blockHash,
      ti: log.transactionIndex,
      li: log.logIndex,
      d: log.args,
      a: log.address,
      e: log.eventSignature,
    })),
  );
  const { rowCount } = await client.query(
    `INSERT INTO event_notifier_records
       (subscription_id, block_timestamp, transaction_hash, block_number, block_hash, transaction_index, log_index,
        decoded_log, next_attempt_at, contract_address, event_signature)
     SELECT $1, to_timestamp(t), h, b, bh, ti, li, d, now(), a, e
       FROM json_to_recordset($2::json)
         AS u(t float8, h text, b int8, bh text, ti int4, li int4, d json, a text, e text)
      WHERE NOT EXISTS (
        SELECT 1 FROM event_notifier_records e
         WHERE e.subscription_id = $1 AND e.transaction_hash = u.h AND e.log_index = u.li AND e.block_hash IS NULL)
     ON CONFLICT (subscription_id, block_hash, log_index) WHERE removal_of IS NULL AND removed_at IS NULL
     DO NOTHING`,
    [subscriptionId, document],
  );
  return rowCount ?? 0;
}

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
