import type { Db } from '#api/db/db.ts';
import type { AttemptResult } from './webhookSender.ts';

/** One attempt as the attempt log keeps it. */
export interface LoggedAttempt {
  projectId: number;
  /** The `webhook-id`. */
  messageId: string;
  endpointId: string | null;
  subscriptionId: string | null;
  eventType: string;
  url: string;
  attemptedAt: Date;
  result: AttemptResult;
}

/** Writes attempts to the log in one statement (its cost is one row each, measured by bench:events). */
export async function recordAttempts(client: Pick<Db, 'query'>, attempts: readonly LoggedAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await client.query(
    `INSERT INTO webhook_attempts (project_id, message_id, endpoint_id, subscription_id, event_type, url, attempted_at,
                                   outcome, http_status, duration_ms, response)
     SELECT * FROM unnest($1::int[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::timestamptz[],
                          $8::text[], $9::int[], $10::int[], $11::text[])`,
    [
      attempts.map((a) => a.projectId),
      attempts.map((a) => a.messageId),
      attempts.map((a) => a.endpointId),
      attempts.map((a) => a.subscriptionId),
      attempts.map((a) => a.eventType),
      attempts.map((a) => a.url),
      attempts.map((a) => a.attemptedAt),
      attempts.map((a) => a.result.outcome ?? 'refused'),
      attempts.map((a) => a.result.status ?? null),
      attempts.map((a) => a.result.durationMs ?? 0),
      attempts.map((a) => (a.result.ok ? (a.result.response ?? '') : (a.result.response ?? a.result.message))),
    ],
  );
}
