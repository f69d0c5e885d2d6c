import type { Static } from 'typebox';
import type { Db } from '#api/db/db.ts';
import { eventSignature, parseAbiEvent } from '#api/eventNotifier/abiEvent.ts';
import { deliverJob } from '#api/eventNotifier/delivery/jobs.ts';
import { nameOf } from '#api/eventNotifier/recordEvent.ts';
import type { RecordRow, SubscriptionRow } from '#api/eventNotifier/rows.ts';
import type { EventNotifierRecord } from '#api/schemas/entities.ts';
import { pageMeta } from '#api/schemas/requests.ts';
import { findSubscription } from './subscriptions.ts';

export type RecordView = Static<typeof EventNotifierRecord>;

/** What a record says of its contract and event when it says nothing: the subscription's first ones. */
export interface RecordDefaults {
  contractAddress: string;
  eventSignature: string;
}

export function recordDefaultsOf(subscription: SubscriptionRow): RecordDefaults {
  return {
    contractAddress: subscription.address,
    eventSignature: eventSignature(parseAbiEvent(subscription.formatted_abi_event)),
  };
}

export function toRecordView(row: RecordRow, defaults: RecordDefaults): RecordView {
  const signature = row.event_signature ?? defaults.eventSignature;
  return {
    id: row.id,
    eventNotifierSubscriptionId: row.subscription_id,
    contractAddress: row.contract_address ?? defaults.contractAddress,
    eventName: nameOf(signature),
    eventSignature: signature,
    status: row.status,
    statusChangedAt: row.status_changed_at.toISOString(),
    blockTimestamp: row.block_timestamp.toISOString(),
    transactionHash: row.transaction_hash,
    blockNumber: row.block_number,
    blockHash: row.block_hash,
    transactionIndex: row.transaction_index,
    logIndex: row.log_index,
    decodedLog: row.decoded_log,
    lastNotificationFailedAt: row.last_notification_failed_at?.toISOString() ?? null,
    lastNotificationFailureMessage: row.last_notification_failure_message,
    notificationFailureCount: row.notification_failure_count,
    removed: row.removed_at !== null,
    removedAt: row.removed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** One page of the subscription's records, newest event first; removed ones too unless `includeRemoved` is false. */
export async function listRecords(
  db: Db,
  projectId: number,
  subscriptionId: string,
  { includeRemoved = true, page, perPage }: { includeRemoved?: boolean; page: number; perPage: number },
) {
  const defaults = recordDefaultsOf(await findSubscription(db.pool, projectId, subscriptionId));
  const where = 'subscription_id = $1 AND removal_of IS NULL AND ($2 OR removed_at IS NULL)';
  const [{ rows }, total] = await Promise.all([
    db.query<RecordRow>(
      `SELECT * FROM event_notifier_records WHERE ${where}
        ORDER BY block_number DESC, log_index DESC LIMIT $3 OFFSET $4`,
      [subscriptionId, includeRemoved, perPage, (page - 1) * perPage],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_notifier_records WHERE ${where}`, [
      subscriptionId,
      includeRemoved,
    ]),
  ]);
  return {
    eventNotifierRecords: rows.map((row) => toRecordView(row, defaults)),
    meta: pageMeta(page, perPage, total.rows[0]?.n ?? 0),
  };
}

export interface ResendSummary {
  subscriptionId: string;
  requeuedCount: number;
  recordIds: string[];
  forced: boolean;
}

/**
 * Queues the subscription's `failed` records for delivery again (same record id, so the same `webhook-id`), and
 * failed removal notices; a removed record is not sent again.
 * Without `force`: only while the webhook is enabled, and each record gets one more attempt (its retries ran
 * out already). With `force`: also while the webhook is disabled, and each record gets a whole new round of
 * `webhookMaxRetries` retries.
 */
export async function resendFailed(
  db: Db,
  projectId: number,
  subscriptionId: string,
  force: boolean,
): Promise<ResendSummary> {
  return db.transaction(async (client) => {
    const subscription = await findSubscription(client, projectId, subscriptionId, { forUpdate: true });
    const summary: ResendSummary = { subscriptionId, requeuedCount: 0, recordIds: [], forced: force };
    if (!force && !subscription.webhook_enabled) return summary;
    if (subscription.webhook_url === null) return summary;
    const { rows } = await client.query<{ id: string }>(
      `UPDATE event_notifier_records
          SET status = 'scanned', status_changed_at = now(), updated_at = now(), next_attempt_at = now(),
              round_failures = 0, round_max_retries = $2, forced = $3
        WHERE subscription_id = $1 AND status = 'failed' AND removed_at IS NULL
        RETURNING id`,
      [subscriptionId, force ? null : 0, force],
    );
    if (rows.length > 0) await deliverJob.enqueue(client, { subscriptionId });
    return { ...summary, requeuedCount: rows.length, recordIds: rows.map((r) => r.id) };
  });
}
