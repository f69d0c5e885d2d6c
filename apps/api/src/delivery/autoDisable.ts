import type { Queryable } from '#api/db/db.ts';
import type { Destination } from './destination.ts';

/**
 * Disables a destination whose every attempt has failed for `afterHours` (WEBHOOK_DISABLE_AFTER_HOURS) since
 * `failingSince`: it says why in its state, its waiting messages become failed (kept for a replay once it is enabled
 * again), and the project's endpoints that take the destination's notice are told: `endpoint.disabled` for an
 * endpoint, `subscription.webhook_disabled` for a subscription's own webhook. True when it did.
 */
export async function disableIfFailingTooLong(
  client: Queryable,
  destination: Pick<Destination, 'projectId' | 'disable'>,
  failingSince: Date,
  afterHours: number,
): Promise<boolean> {
  if (failingSince.getTime() > Date.now() - afterHours * 3_600_000) return false;
  const since = `${failingSince.toISOString().slice(0, 19)}Z`;
  const notice = await destination.disable(client, `Every attempt failed for ${afterHours} hours, since ${since}`);
  if (!notice) return false;
  await client.query(
    `SELECT webhook_write_message($1, $2, NULL,
                                  jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $3::jsonb)))`,
    [destination.projectId, notice.eventType, JSON.stringify(notice.data)],
  );
  return true;
}
