import type { Db } from '#api/db/db.ts';
import { mapLimit } from '#api/lib/mapLimit.ts';
import { recordAttempts } from './attemptLog.ts';
import { disableIfFailingTooLong } from './autoDisable.ts';
import type { Claimed, Destination, Outcome } from './destination.ts';
import { afterFailure } from './retrySchedule.ts';
import { type DeliverySettings, deliveryLeaseMs } from './settings.ts';
import { type AttemptResult, countRefusedWebhook, sendWebhook } from './webhookSender.ts';
import { webhookUrlRefusal } from './webhookUrlPolicy.ts';

export interface PipelineDeps {
  db: Db;
  settings: DeliverySettings;
  signal?: AbortSignal | undefined;
}

/** How a run claims: its lanes, and whether it ends at a batch that was not full. */
export interface RunShape {
  /**
   * Lanes claiming batches side by side, the run's webhooks in flight shared between them: one lane's database
   * round trips overlap another's HTTP requests.
   */
  lanes: number;
  /**
   * A batch smaller than asked means nothing else was due: the run ends there (true) when something else looks for
   * what becomes due meanwhile; otherwise (false) it claims until a claim finds nothing.
   */
  endAtShortBatch: boolean;
}

export interface DeliveryRunReport {
  delivered: number;
  retrying: number;
  failed: number;
  /** The destination was disabled for failing too long. */
  disabled: boolean;
  /** When the earliest attempt still pending is due (null when none is, or the destination was disabled). */
  nextAttemptAt: Date | null;
}

/**
 * The one dispatch path of webhooks (message → destination → attempt): claims the destination's due messages in
 * batches, checks its URL against the policy once per run, signs and sends each (Standard Webhooks), and records
 * each batch in one database transaction: the outcomes with their next retry, the attempt log, the failure streak,
 * and the auto-disable when the streak has lasted WEBHOOK_DISABLE_AFTER_HOURS.
 */
export async function deliverToDestination<C extends Claimed>(
  deps: PipelineDeps,
  destination: Destination<C>,
  shape: RunShape,
): Promise<DeliveryRunReport> {
  const report: DeliveryRunReport = { delivered: 0, retrying: 0, failed: 0, disabled: false, nextAttemptAt: null };
  const { settings } = deps;
  const refusal = await webhookUrlRefusal(destination.url, settings);
  const leaseMs = deliveryLeaseMs(settings);
  const batchSize = settings.deliveryConcurrency * 2;
  const perLane = Math.max(1, Math.ceil(settings.deliveryConcurrency / shape.lanes));

  const drain = async () => {
    while (!deps.signal?.aborted && !report.disabled) {
      const claimed = await destination.claim(deps.db, batchSize, leaseMs);
      if (claimed.length === 0) break;
      const payloads = await destination.payloads(deps.db, claimed);
      const attemptedAt = new Date();
      const results = await mapLimit(claimed, perLane, (c, i): Promise<AttemptResult> => {
        const event = payloads[i];
        if (!event) return Promise.resolve({ ok: false, message: 'The event of this message no longer exists' });
        if (refusal) {
          countRefusedWebhook();
          return Promise.resolve({ ok: false, outcome: 'refused', message: `Webhook URL refused: ${refusal}` });
        }
        return sendWebhook({
          url: destination.url,
          id: c.id,
          secret: destination.secrets,
          timeoutMs: settings.webhookTimeoutMs,
          allowance: settings.allowPrivateWebhookAddresses,
          event,
        });
      });
      const outcomes = claimed.map((c, i): Outcome<C> => {
        const result = results[i] as AttemptResult;
        if (result.ok) return { claimed: c, result, final: false, delayMs: 0 };
        const next = afterFailure(c.roundFailures + 1, c.maxRetries, settings, result.retryAfterMs);
        return { claimed: c, result, final: next.final || !payloads[i], delayMs: next.delayMs };
      });
      await record(
        deps,
        destination,
        outcomes,
        payloads.map((p) => p?.type ?? 'unknown'),
        attemptedAt,
        report,
      );
      if (shape.endAtShortBatch && claimed.length < batchSize) break;
    }
  };
  await Promise.all(Array.from({ length: shape.lanes }, drain));
  if (!report.disabled) report.nextAttemptAt = await destination.nextAttemptAt(deps.db);
  return report;
}

/** One batch's outcomes, its attempt log and its failure streak, in one database transaction. */
async function record<C extends Claimed>(
  deps: PipelineDeps,
  destination: Destination<C>,
  outcomes: Outcome<C>[],
  eventTypes: string[],
  attemptedAt: Date,
  report: DeliveryRunReport,
): Promise<void> {
  const delivered = outcomes.some((o) => o.result.ok);
  await deps.db.transaction(async (client) => {
    if (!(await destination.record(client, outcomes))) return;
    for (const o of outcomes) {
      if (o.result.ok) report.delivered++;
      else if (o.final) report.failed++;
      else report.retrying++;
    }
    if (deps.settings.webhookAttemptLog) {
      await recordAttempts(
        client,
        outcomes.map((o, i) => ({
          projectId: destination.projectId,
          messageId: o.claimed.id,
          ...destination.logAs,
          eventType: eventTypes[i] as string,
          url: destination.url,
          attemptedAt,
          result: o.result,
        })),
      );
    }
    const failingSince = await destination.failureStreak(client, delivered, attemptedAt);
    if (failingSince && !delivered) {
      if (await disableIfFailingTooLong(client, destination, failingSince, deps.settings.webhookDisableAfterHours)) {
        report.disabled = true;
      }
    }
  });
}
