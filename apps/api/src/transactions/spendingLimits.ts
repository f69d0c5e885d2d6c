import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import type { SqlRunner } from './transactions.ts';

/** The spending limits of one activated function, in wei. */
export interface SpendingLimits {
  maxValuePerTransaction: bigint;
  maxValuePerDay: bigint;
}

function exceeded(
  signature: string,
  value: bigint,
  limit: keyof SpendingLimits,
  max: bigint,
  remainingToday: bigint,
): ApiError {
  return new ApiError(
    'SPENDING_LIMIT_EXCEEDED',
    { value: value.toString(), limit, signature, max: max.toString(), remainingToday: remainingToday.toString() },
    { details: [{ field: 'body.value', message: `over ${limit}: ${remainingToday} wei is left today (UTC)` }] },
  );
}

/**
 * The per-transaction limit, checked before anything costs a lock or a call to the chain (the day's sum is read
 * only for the refusal, to say what is left).
 */
export async function checkTransactionLimit(
  db: SqlRunner,
  fn: { id: number; signature: string },
  value: bigint,
  limits: SpendingLimits,
): Promise<void> {
  if (value <= limits.maxValuePerTransaction) return;
  const left = limits.maxValuePerDay - (await spentToday(db, fn.id));
  throw exceeded(fn.signature, value, 'maxValuePerTransaction', limits.maxValuePerTransaction, left > 0n ? left : 0n);
}

/**
 * The value the function's transactions have sent, or may still send, this UTC day: every transaction accepted
 * today, but those that ended without being mined (failed before or after broadcast, reverted before it, or
 * cancelled: a cancelled one sent nothing).
 */
async function spentToday(db: SqlRunner, functionId: number): Promise<bigint> {
  const { rows } = await db.query<{ spent: string }>(
    `SELECT coalesce(sum(value), 0)::text AS spent FROM transactions
      WHERE contract_activated_function_id = $1 AND value > 0
        AND created_at >= date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        AND status NOT IN ('broadcast-failed', 'monitor-failed', 'cancelled')
        AND NOT (status = 'reverted' AND block_number IS NULL)`,
    [functionId],
  );
  return BigInt(rows[0]?.spent ?? '0');
}

/**
 * Runs `insert` (the transaction's row) only if the value fits in what is left of the function's day limit.
 * Requests of one function wait for each other on its activation row (SELECT … FOR UPDATE), so that concurrent
 * requests that together exceed the limit accept exactly what fits; requests without value never come here.
 */
export async function withinDayLimit<T>(
  db: Db,
  functionId: number,
  value: bigint,
  insert: (tx: SqlRunner) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ maxValuePerDay: string; signature: string }>(
      `SELECT max_value_per_day::text AS "maxValuePerDay", signature
         FROM contract_activated_functions WHERE id = $1 FOR UPDATE`,
      [functionId],
    );
    const max = BigInt(rows[0]?.maxValuePerDay ?? '0');
    const left = max - (await spentToday(tx, functionId));
    if (value > left) {
      throw exceeded(rows[0]?.signature ?? '', value, 'maxValuePerDay', max, left > 0n ? left : 0n);
    }
    return insert(tx);
  });
}
