import { type KeyObject, sign } from 'node:crypto';

/**
 * Fireblocks' v1 retry schedule, in seconds after the first attempt (developers.fireblocks.com/reference/webhooks:
 * "[15, 45, 105, 225, 465, 945, 1905, 3825, 7665, 15345]").
 */
export const FIREBLOCKS_WEBHOOK_RETRY_SECONDS = [15, 45, 105, 225, 465, 945, 1905, 3825, 7665, 15345];

/** Most deliveries waiting for a retry at once; past it the oldest waiting one is given up. */
const MAX_PENDING = 10_000;

interface Pending {
  timer?: NodeJS.Timeout;
  abort?: AbortController;
}

/**
 * Sends v1 webhooks as Fireblocks does: a POST of `{ type, tenantId, timestamp, data }` with `Fireblocks-Signature`,
 * base64 of an RSA-SHA512 signature of the raw body (reference "Validate Requests": Base64(RSA512(KEY,
 * SHA512(eventBody)))), and `Fireblocks-API-Version: 1.4.0`. The body is compact JSON, so that Fireblocks' own
 * example receiver, which verifies `JSON.stringify(req.body)`, verifies it. Retried on no answer, 5xx, 408 and 429,
 * never on other 4xx (reference "Webhooks resend troubleshooting").
 */
export class WebhookSender {
  private readonly pending = new Set<Pending>();
  private stopped = false;
  /** The last event's first attempt, once made: each event goes out after the one before it. */
  private sent: Promise<void> = Promise.resolve();
  /** Attempts made, and deliveries answered 2xx: for tests and the README's figures. */
  readonly stats = { attempts: 0, delivered: 0, givenUp: 0 };

  constructor(
    private readonly url: string,
    private readonly privateKey: KeyObject,
    private readonly tenantId: string,
    private readonly retryDelaysMs: number[] = FIREBLOCKS_WEBHOOK_RETRY_SECONDS.map((s) => s * 1000),
    private readonly timeoutMs = 10_000,
  ) {}

  send(type: string, data: unknown): void {
    if (this.stopped) return;
    const body = JSON.stringify({ type, tenantId: this.tenantId, timestamp: Date.now(), data });
    // Signed in libuv's thread pool, several at once: an RSA signature takes a millisecond or more, and the service
    // answers its API meanwhile. Events still go out in the order they happened.
    const signature = new Promise<string | undefined>((resolve) =>
      sign('RSA-SHA512', Buffer.from(body), this.privateKey, (error, signed) =>
        resolve(error ? undefined : signed.toString('base64')),
      ),
    );
    const before = this.sent;
    this.sent = Promise.all([signature, before]).then(([signed]) => {
      if (signed !== undefined) this.attempt(body, signed, 0, {});
    });
  }

  private attempt(body: string, signature: string, retry: number, entry: Pending): void {
    if (this.stopped) return;
    if (!this.pending.has(entry)) {
      if (this.pending.size >= MAX_PENDING) {
        const oldest = this.pending.values().next().value as Pending;
        clearTimeout(oldest.timer);
        oldest.abort?.abort();
        this.pending.delete(oldest);
        this.stats.givenUp++;
      }
      this.pending.add(entry);
    }
    entry.abort = new AbortController();
    const timeout = setTimeout(() => entry.abort?.abort(), this.timeoutMs);
    this.stats.attempts++;
    fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'Fireblocks-Signature': signature,
        'Fireblocks-API-Version': '1.4.0',
      },
      body,
      signal: entry.abort.signal,
    })
      .then(async (res) => {
        await res.arrayBuffer().catch(() => undefined);
        return res.status;
      })
      .catch(() => 0)
      .then((status) => {
        clearTimeout(timeout);
        if (this.stopped) return;
        const again = status === 0 || status >= 500 || status === 408 || status === 429;
        if (status >= 200 && status < 300) this.stats.delivered++;
        if (!again || retry >= this.retryDelaysMs.length) {
          if (again) this.stats.givenUp++;
          this.pending.delete(entry);
          return;
        }
        const delay = (this.retryDelaysMs[retry] ?? 0) - (this.retryDelaysMs[retry - 1] ?? 0);
        entry.timer = setTimeout(() => this.attempt(body, signature, retry + 1, entry), Math.max(0, delay));
      });
  }

  /** Ends every retry and in-flight delivery. */
  stop(): void {
    this.stopped = true;
    for (const entry of this.pending) {
      clearTimeout(entry.timer);
      entry.abort?.abort();
    }
    this.pending.clear();
  }
}
