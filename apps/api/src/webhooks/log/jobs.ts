import Type from 'typebox';
import { deliverySettingsOf } from '#api/delivery/settings.ts';
import { defineJob } from '#api/jobs/defineJob.ts';
import { purgeWebhookLog } from './purgeLog.ts';

const PURGE_EVERY_MS = 3_600_000;

/**
 * `webhook:purge-log`: deletes the attempt log and the messages past WEBHOOK_LOG_RETENTION_DAYS, in bounded
 * batches. The sweep keeps one queued, due an hour after the last one ran.
 */
export const purgeLogJob = defineJob({
  name: 'webhook:purge-log',
  lane: 'upkeep',
  payload: Type.Object({}),
  maxAttempts: 3,
  async run({ deps, log }) {
    const deleted = await purgeWebhookLog(deps.db, deliverySettingsOf(deps).webhookLogRetentionDays, deps.signal);
    if (deleted.attempts + deleted.messages > 0) log.info(deleted, 'webhook log purged');
  },
  async recover(deps) {
    await purgeLogJob.enqueue(deps.db.pool, {}, { runAt: new Date(Date.now() + PURGE_EVERY_MS), keepQueued: true });
    return 0;
  },
});
