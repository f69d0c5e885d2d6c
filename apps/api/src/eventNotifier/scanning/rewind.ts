import type { Queryable } from '#api/db/db.ts';

/**
 * Moves a subscription's scan back to `fromBlock`, inside the caller's transaction and under the scan's lock (no
 * scan of it runs): the next scan reads from there (the start block goes down with it when needed), and the
 * checkpoints from there on go, so that the blocks are compared again. Records already stored stay, once each: a
 * range read again skips them (rangeStore.ts). With `redeliver`, the live records from `fromBlock` on are sent
 * again, to the subscription's webhook (a whole new round of retries, the same record ids) and to the project's
 * endpoints that take its events (new messages); a record still `scanned` is on its way already. Clears a rewind that was waiting. Returns the records sent again.
 */
export async function applyRewind(
  client: Queryable,
  subscriptionId: string,
  fromBlock: number,
  redeliver: boolean,
): Promise<number> {
  await client.query(
    `UPDATE event_notifier_subscriptions
        SET last_scanned_block = CASE WHEN $2::int8 = 0 THEN NULL
                                      ELSE least(coalesce(last_scanned_block, $2::int8 - 1), $2::int8 - 1) END,
            initial_block_number = least(initial_block_number, $2::int8),
            rewind_from_block = NULL, rewind_redeliver = false
      WHERE id = $1`,
    [subscriptionId, fromBlock],
  );
  await client.query('DELETE FROM event_notifier_scan_checkpoints WHERE subscription_id = $1 AND block_number >= $2', [
    subscriptionId,
    fromBlock,
  ]);
  if (!redeliver) return 0;
  const { rowCount } = await client.query(
    `UPDATE event_notifier_records
        SET status = 'scanned', status_changed_at = now(), updated_at = now(), next_attempt_at = now(),
            round_failures = 0, round_max_retries = NULL, forced = false
      WHERE subscription_id = $1 AND block_number >= $2 AND removal_of IS NULL AND removed_at IS NULL
        AND status IN ('notified', 'failed')`,
    [subscriptionId, fromBlock],
  );
  await client.query('SELECT webhook_redeliver_records($1, $2)', [subscriptionId, fromBlock]);
  return rowCount ?? 0;
}
