// When and how long to wait before trying a call again. Like stripe-node: exponential backoff with jitter, and
// the server's Retry-After wins when it sends one. 501 means "not served", which retrying cannot change.

/** `Retry-After` longer than this is not waited for: the error goes to the caller, who knows its deadlines. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Whether an answer with this status may succeed when sent again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

/**
 * Milliseconds to wait from a `Retry-After` header (RFC 9110 §10.2.3): delta seconds or an HTTP date, a past date
 * meaning now. Undefined when absent or not understood. The client waits by it; it is exported for code that calls
 * other HTTP services the same way (the Mountain server uses it for webhook receivers).
 *
 * @example
 * ```ts
 * import { parseRetryAfter } from '@mountain/public-api-client';
 *
 * parseRetryAfter('5'); // 5000
 * parseRetryAfter('Sun, 22 Nov 2026 10:00:03 GMT', Date.parse('Sun, 22 Nov 2026 10:00:00 GMT')); // 3000
 * parseRetryAfter('soon'); // undefined
 * ```
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates name the day and month ("Sun, 22 Nov 2026 10:00:03 GMT"); Date.parse would read "-1" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first) when the server gave no `Retry-After`:
 * `min(maxMs, initialMs × 2^retry)`, less a random amount of up to half of it ("equal jitter"), so retries stay
 * spaced out and many callers do not retry in step. The client waits by it; it is exported, like `parseRetryAfter`,
 * for code that retries other services the same way (the Mountain server uses both for its JSON-RPC endpoints).
 *
 * @example
 * ```ts
 * import { backoffDelay } from '@mountain/public-api-client';
 *
 * backoffDelay(0, 500, 8_000); // between 250 and 500
 * backoffDelay(3, 500, 8_000); // between 2000 and 4000
 * backoffDelay(9, 500, 8_000); // between 4000 and 8000: capped
 * ```
 */
export function backoffDelay(retry: number, initialMs: number, maxMs: number, random = Math.random): number {
  const base = Math.min(maxMs, initialMs * 2 ** retry);
  // "Equal jitter": at least half the step, so retries stay spaced out, and spread so clients don't align.
  return base / 2 + random() * (base / 2);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
