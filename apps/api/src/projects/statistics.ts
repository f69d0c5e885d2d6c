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
  const first = new Date(now);
  first.setUTCMinutes(0, 0, 0);
  first.setUTCHours(first.getUTCHours() - (STATISTICS_HOURS - 1));
  const hours = Array.from({ length: STATISTICS_HOURS }, (_, i): TransactionHour => {
    const hour = new Date(first.getTime() + i * 3_600_000).toISOString();
    return { hour, succeeded: 0, reverted: 0, failed: 0, pending: 0 };
  });
  for (const row of rows) {
    const index = Math.round((row.hour.getTime() - first.getTime()) / 3_600_000);
    const bucket = hours[index];
    if (!bucket) continue; // created in the future by another clock: not in this window
    bucket[finalOf(row.status)] += Number(row.count);
  }
  return hours;
}

function finalOf(status: string): 'succeeded' | 'reverted' | 'failed' | 'pending' {
  if (status === 'succeeded' || status === 'reverted') return status;
  if (status === 'broadcast-failed' || status === 'monitor-failed') return 'failed';
  return 'pending';
}
