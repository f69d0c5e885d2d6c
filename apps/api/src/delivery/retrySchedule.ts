import type { DeliverySettings } from './settings.ts';

export type RetrySchedule = Pick<DeliverySettings, 'webhookBackoffBaseMs' | 'webhookBackoffMaxMs'>;

/**
 * What follows a failed attempt, the round's `failures`-th (this one included) of a message allowed `maxRetries`
 * retries: nothing more when that was its last, else the next attempt after `delayMs`.
 */
export function afterFailure(
  failures: number,
  maxRetries: number,
  schedule: RetrySchedule,
  retryAfterMs?: number,
): { final: boolean; delayMs: number } {
  return {
    final: failures > maxRetries,
    delayMs: retryDelayMs(failures, schedule.webhookBackoffBaseMs, schedule.webhookBackoffMaxMs, retryAfterMs),
  };
}

/**
 * Delay before retry number `failures` (1 for the first retry): exponential from `baseMs`, capped at `maxMs`,
 * with "equal jitter" (half fixed, half random) so that many failing messages do not retry in lockstep. A
 * `Retry-After` longer than that is honoured (up to `maxMs`).
 */
export function retryDelayMs(failures: number, baseMs: number, maxMs: number, retryAfterMs?: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 30));
  const jittered = exponential / 2 + Math.random() * (exponential / 2);
  return Math.ceil(Math.max(jittered, Math.min(retryAfterMs ?? 0, maxMs)));
}
