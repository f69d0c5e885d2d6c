import type { AnyWebhookEvent } from '@mountain/webhook-sdk';
import type { AbiEvent } from 'viem';
import type { Db } from '#api/db/db.ts';
import { parseAbiEvent } from '#api/eventNotifier/abiEvent.ts';
import { recordEvent } from '#api/eventNotifier/recordEvent.ts';
import type { RecordRow, SubscriptionRow } from '#api/eventNotifier/rows.ts';
import { TRANSACTION_COLUMNS } from '#api/transactions/transactions.ts';

interface MessageRow {
  id: string;
  event_type: string;
  created_at: Date;
  previous_status: string | null;
  sequence: string | null;
  transaction: Record<string, unknown> | null;
  record_id: string | null;
  subscription_id: string | null;
  data: Record<string, unknown> | null;
}

/**
 * The payloads of messages, by message id. A transaction event is the transaction as `get-transaction` answers
 * it, read from the row as the change left it (its `confirmations` as of now); an event notifier event is built
 * from its record as for the subscription's own webhook. A message whose record is gone has no payload.
 */
export async function messagePayloads(
  client: Pick<Db, 'query'>,
  ids: readonly string[],
): Promise<Map<string, AnyWebhookEvent>> {
  const { rows } = await client.query<MessageRow>(
    `SELECT m.id, m.event_type, m.created_at, m.previous_status, m.sequence, m.record_id, m.subscription_id, m.data,
            CASE WHEN m.snapshot IS NOT NULL THEN (SELECT row_to_json(v) FROM (
               SELECT ${TRANSACTION_COLUMNS} FROM jsonb_populate_record(NULL::transactions, m.snapshot) AS transactions
             ) v) END AS transaction
       FROM webhook_messages m WHERE m.id = ANY($1::uuid[])`,
    [ids],
  );
  const payloads = new Map<string, AnyWebhookEvent>();
  const recordIds = rows.flatMap((r) => (r.record_id ? [r.record_id] : []));
  const records = recordIds.length > 0 ? await recordsOf(client, recordIds) : new Map();
  for (const row of rows) {
    const timestamp = row.created_at.toISOString();
    if (row.transaction) {
      payloads.set(row.id, {
        type: row.event_type,
        timestamp,
        data: { transaction: row.transaction, previousStatus: row.previous_status, sequence: Number(row.sequence) },
      } as unknown as AnyWebhookEvent);
    } else if (row.record_id) {
      const found = records.get(row.record_id);
      if (found) payloads.set(row.id, recordEvent(found.subscription, found.event, found.record));
    } else {
      payloads.set(row.id, { type: row.event_type, timestamp, data: row.data } as unknown as AnyWebhookEvent);
    }
  }
  return payloads;
}

async function recordsOf(client: Pick<Db, 'query'>, ids: string[]) {
  const { rows: recordRows } = await client.query<RecordRow>(
    'SELECT * FROM event_notifier_records WHERE id = ANY($1::uuid[])',
    [ids],
  );
  const subscriptionIds = [...new Set(recordRows.map((r) => r.subscription_id))];
  const { rows: subscriptionRows } = await client.query<SubscriptionRow>(
    'SELECT * FROM event_notifier_subscriptions WHERE id = ANY($1::uuid[])',
    [subscriptionIds],
  );
  const subscriptions = new Map(
    subscriptionRows.map((s) => [s.id, { subscription: s, event: parseAbiEvent(s.formatted_abi_event) }]),
  );
  const found = new Map<string, { record: RecordRow; subscription: SubscriptionRow; event: AbiEvent }>();
  for (const record of recordRows) {
    const of = subscriptions.get(record.subscription_id);
    if (of) found.set(record.id, { record, ...of });
  }
  return found;
}
