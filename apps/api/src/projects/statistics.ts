import type { Db } from '#api/db/db.ts';

/** The hours a statistics answer covers: the current hour and the 23 before it. */
export const STATISTICS_HOURS = 24;

export interface TransactionHour {
  /** Start of the hour (UTC). */
  hour: string;
  succeeded: number;
  reverted: number;
  /** broadcast-failed and monitor-failed. */
  failed: number;
  /** created, processing and broadcasted: not final yet. */
  pending: number;
}

/** The outcomes of the attempt log (`webhook_attempts.outcome`), as the statistics name them. */
export const ATTEMPT_OUTCOMES = {
  delivered: 'delivered',
  http_error: 'httpError',
  timeout: 'timeout',
  connection_error: 'connectionError',
  refused: 'refused',
} as const;

export type WebhookAttemptHour = { hour: string } & Record<
  (typeof ATTEMPT_OUTCOMES)[keyof typeof ATTEMPT_OUTCOMES],
  number
>;

/**
 * Transactions created in each of the last 24 hours, by where they ended. One grouped statement over the
 * (project_id, created_at) index range of those hours: its cost follows that project's transactions of the last day,
 * never the table, and the answer is always 24 rows.
 */
export async function transactionsPerHour(db: Db, projectId: number, now = new Date()): Promise<TransactionHour[]> {
  const { rows } = await db.query<{ hour: Date; status: string; count: string }>(
    `SELECT date_trunc('hour', created_at) AS hour, status, count(*) AS count
       FROM transactions
      WHERE project_id = $1 AND created_at >= date_trunc('hour', $2::timestamptz) - interval '23 hours'
      GROUP BY 1, 2`,
    [projectId, now],
    'statistics-transactions-per-hour',
  );
  return byHour(now, rows, { succeeded: 0, reverted: 0, failed: 0, pending: 0 }, (row) => finalOf(row.status));
}

/**
 * Webhook attempts (of the project's endpoints and subscriptions) made in each of the last 24 hours, by outcome:
 * the attempt log's (project_id, attempted_at) index range of those hours, as transactionsPerHour.
 */
export async function webhookAttemptsPerHour(
  db: Db,
  projectId: number,
  now = new Date(),
): Promise<WebhookAttemptHour[]> {
  const { rows } = await db.query<{ hour: Date; outcome: keyof typeof ATTEMPT_OUTCOMES; count: string }>(
    `SELECT date_trunc('hour', attempted_at) AS hour, outcome, count(*) AS count
       FROM webhook_attempts
      WHERE project_id = $1 AND attempted_at >= date_trunc('hour', $2::timestamptz) - interval '23 hours'
      GROUP BY 1, 2`,
    [projectId, now],
    'statistics-webhook-attempts-per-hour',
  );
  const zero = { delivered: 0, httpError: 0, timeout: 0, connectionError: 0, refused: 0 };
  return byHour(now, rows, zero, (row) => ATTEMPT_OUTCOMES[row.outcome]);
}

/** The 24 hours ending with `now`'s, each `zero` plus the counts of `rows` in it (rows of other hours are left out). */
function byHour<Row extends { hour: Date; count: string }, Counts extends Record<string, number>>(
  now: Date,
  rows: Row[],
  zero: Counts,
  column: (row: Row) => keyof Counts | undefined,
): ({ hour: string } & Counts)[] {
  const first = new Date(now);
  first.setUTCMinutes(0, 0, 0);
  first.setUTCHours(first.getUTCHours() - (STATISTICS_HOURS - 1));
  const hours = Array.from({ length: STATISTICS_HOURS }, (_, i) => ({
    hour: new Date(first.getTime() + i * 3_600_000).toISOString(),
    ...zero,
  }));
  for (const row of rows) {
    const bucket = hours[Math.round((row.hour.getTime() - first.getTime()) / 3_600_000)];
    const key = column(row);
    // Made in the future by another clock, or an outcome this version does not count: not in the answer.
    if (!bucket || key === undefined) continue;
    (bucket as Record<keyof Counts, number>)[key] += Number(row.count);
  }
  return hours;
}

function finalOf(status: string): 'succeeded' | 'reverted' | 'failed' | 'pending' {
  if (status === 'succeeded' || status === 'reverted') return status;
  if (status === 'broadcast-failed' || status === 'monitor-failed') return 'failed';
  return 'pending';
}
