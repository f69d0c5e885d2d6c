import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay } from '@mountain/public-api-client';
import { TimeoutError } from 'viem';
import { BaseError } from '#api/errors/BaseError.ts';
import { type JsonRpcAnswer, judge, merged, parse, type Reply, response } from './rateLimitAnswers.ts';

// Hosted JSON-RPC providers refuse past a request rate. What they answer, and what this module reads from it:
// - HTTP 429, with a JSON-RPC error in the body (Alchemy: code 429; Infura: code -32005 "project ID request rate
//   exceeded" with `data.backoff_seconds`; QuickNode: code 429), sometimes a `Retry-After` header (seconds or an
//   HTTP date). https://www.alchemy.com/docs/reference/throughput,
//   https://docs.infura.io/api/networks/ethereum/how-to/avoid-rate-limiting
// - HTTP 200 with some elements of a batch answer refused with code 429 and the others answered (QuickNode: "25 valid
//   responses and one error", https://support.quicknode.com/hc/en-us/articles/12002099702289; Alchemy in batches,
//   https://github.com/NomicFoundation/hardhat/issues/3501, https://github.com/wevm/viem/issues/3680).
// - HTTP 503 with `Retry-After`: busy or in maintenance for that long.
// A refused request is sent again after the wait; the endpoint's other requests wait with it.

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface RateLimitOptions {
  /**
   * The longest one request waits in all for the endpoint's rate limit, from when it is made. A wait that would end
   * later is not begun: the request fails at once with RateLimitedError, and the caller (a job) retries later.
   */
  budgetMs?: number;
  /** Each HTTP attempt's own timeout: an endpoint that does not answer is still detected this soon. */
  attemptTimeoutMs?: number;
  /** How many times one request is sent again after refusals. */
  maxRetries?: number;
  /** Backoff when the endpoint says nothing of how long to wait: doubling from this, with jitter… */
  initialDelayMs?: number;
  /** …up to this. */
  maxDelayMs?: number;
}

export const RATE_LIMIT_DEFAULTS: Readonly<Required<RateLimitOptions>> = Object.freeze({
  budgetMs: 30_000,
  attemptTimeoutMs: 10_000,
  maxRetries: 5,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
});

/** The longest a request through `withRateLimits(options)` can take: its budget, then one last attempt. */
export function longestRequestMs(options: RateLimitOptions = {}): number {
  const { budgetMs, attemptTimeoutMs } = { ...RATE_LIMIT_DEFAULTS, ...options };
  return budgetMs + attemptTimeoutMs;
}

/**
 * A request the endpoint kept refusing for its rate limit: after the retries, or because the wait it asked for
 * (or that other requests to it were asked for) ends past the request's budget. `retryAfterMs` is how long until
 * the endpoint takes requests again, as far as it said; a caller that retries later waits at least that long.
 */
export class RateLimitedError extends BaseError {
  override name = 'RateLimitedError';
  readonly code = 'CHAIN_UNAVAILABLE';
  constructor(
    /** The endpoint's origin (its path, which holds a provider's API key, is left out). */
    readonly origin: string,
    readonly retryAfterMs: number | undefined,
    reason: string,
  ) {
    // Without the origin: the message reaches transactions' errors, which never show the RPC endpoint.
    super(`The RPC endpoint is rate limiting this platform: ${reason}`);
  }
}

/** Requests in flight after a refusal start at one, and grow by one per request served; past this, no limit again. */
const OPEN_WINDOW = 64;

/**
 * What every request to one endpoint shares: the time before which none is sent ("not before"), and how many may
 * be in flight. A refusal sets the time (the wait the endpoint asked for, else backoff) and lets one request at a
 * time go when it has passed, then one more for each request served (twice as many each round trip, as TCP's slow
 * start): the requests that waited do not all go at once to be refused together again. Measured against the lab's
 * provider at 5 requests/s, 40 separate requests at once: all answered, 48 refusals; releasing every waiting request
 * when the time has passed, 113 refusals and 19 requests out of retries.
 */
class EndpointGate {
  notBefore = 0;
  private window = Number.POSITIVE_INFINITY;
  private inFlight = 0;
  /** Refusals in a row, each of a request sent after the one before: the exponent of the backoff. */
  private strikes = 0;
  private lastRefusalAt = Number.NEGATIVE_INFINITY;
  private waiting: (() => void)[] = [];

  /** Resolves when a request may be sent; it must then call `leave`. */
  async enter(deadline: number, signal: AbortSignal, refused: (retryAfterMs: number, reason: string) => Error) {
    for (;;) {
      if (signal.aborted) throw abortError(signal);
      const now = Date.now();
      if (this.notBefore > now) {
        const wait = this.notBefore - now;
        if (this.notBefore > deadline) {
          throw refused(wait, `it asks to wait ${seconds(wait)}, longer than a request may wait`);
        }
        await sleep(wait, undefined, { signal });
        continue;
      }
      if (this.inFlight < this.window) {
        this.inFlight++;
        return;
      }
      if (now >= deadline) throw refused(0, 'no turn came within the time a request may wait');
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          const i = this.waiting.indexOf(done);
          if (i >= 0) this.waiting.splice(i, 1);
          if (signal.aborted) reject(abortError(signal));
          else resolve();
        };
        const timer = setTimeout(done, deadline - now);
        signal.addEventListener('abort', done, { once: true });
        this.waiting.push(done);
      });
    }
  }

  /** A request sent at `sentAt` is over; `served` when the endpoint answered it without refusing. */
  leave(sentAt: number, served: boolean): void {
    this.inFlight--;
    if (served && sentAt >= this.lastRefusalAt) {
      this.strikes = 0;
      if (this.window < OPEN_WINDOW) this.window += 1;
      else this.window = Number.POSITIVE_INFINITY;
    }
    for (let free = this.window - this.inFlight; free > 0 && this.waiting.length > 0; free--) {
      this.waiting[0]?.();
    }
  }

  /** The endpoint refused a request sent at `sentAt`, asking to wait `hintMs` (or not saying). */
  refuse(sentAt: number, hintMs: number | undefined, settings: Required<RateLimitOptions>): void {
    const now = Date.now();
    // Requests already in flight when the first refusal came are refused in the same round: one strike.
    if (sentAt >= this.lastRefusalAt) this.strikes++;
    this.lastRefusalAt = now;
    this.window = 1;
    const wait = hintMs ?? backoffDelay(this.strikes - 1, settings.initialDelayMs, settings.maxDelayMs);
    this.notBefore = Math.max(this.notBefore, now + wait);
  }
}

/** The gate of each endpoint (origin and path: a provider's limit is per API key, which the path holds). */
const gates = new Map<string, EndpointGate>();

function gateOf(url: URL): EndpointGate {
  const key = `${url.origin}${url.pathname}`;
  let gate = gates.get(key);
  if (!gate) {
    gate = new EndpointGate();
    gates.set(key, gate);
  }
  return gate;
}

function seconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', cause: signal.reason });
}

/**
 * A `fetchFn` for viem's HTTP transport that honours the endpoint's rate limit. A request refused for the rate (HTTP
 * 429, or HTTP 200 with a rate-limit error as the answer) is sent again after the wait the endpoint asked for
 * (`Retry-After`, or Infura's `backoff_seconds`, whichever is longer), else after exponential backoff with jitter;
 * meanwhile the endpoint's other requests wait too (see EndpointGate). A batch refused whole is sent again one call
 * per request, in order, so that it fits in what the endpoint allows; the calls of a batch refused one by one are
 * sent again together; the answers are put back together. Each request waits at most `budgetMs` in all and is sent at most
 * `1 + maxRetries` times; then it fails with RateLimitedError (viem wraps it in an HttpRequestError). A 503 with
 * `Retry-After` is sent again after that wait when it fits in the budget (the other requests are not held: the
 * endpoint is down, not past a rate); a 503 that stays is answered as it came. Every attempt has its own timeout
 * (`attemptTimeoutMs`, a viem TimeoutError), so viem's own timeout, which covers the waits too, must be at least
 * `longestRequestMs(options)`.
 */
export function withRateLimits(fetchFn: FetchFn, options: RateLimitOptions = {}): FetchFn {
  const settings: Required<RateLimitOptions> = { ...RATE_LIMIT_DEFAULTS, ...options };
  return async (input, init = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const reply = await new Exchange(fetchFn, url, init, settings).run();
    return response(reply);
  };
}

/** One request of viem through the gate of its endpoint, with its retries. */
class Exchange {
  private readonly gate: EndpointGate;
  private readonly deadline: number;
  /** Aborts on the caller's signal (viem's timeout, the caller's own), when there is one. */
  private readonly stop = new AbortController();

  constructor(
    private readonly fetchFn: FetchFn,
    private readonly url: URL,
    private readonly init: RequestInit,
    private readonly settings: Required<RateLimitOptions>,
  ) {
    this.gate = gateOf(url);
    this.deadline = Date.now() + settings.budgetMs;
    if (init.signal?.aborted) this.stop.abort(init.signal.reason);
    else init.signal?.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  async run(): Promise<Reply> {
    try {
      return await this.send(typeof this.init.body === 'string' ? this.init.body : '', 0);
    } finally {
      this.init.signal?.removeEventListener('abort', this.onOuterAbort);
    }
  }

  private onOuterAbort = () => this.stop.abort(this.init.signal?.reason);

  private refused = (retryAfterMs: number | undefined, reason: string) =>
    new RateLimitedError(this.url.origin, retryAfterMs, reason);

  private async send(body: string, retries: number): Promise<Reply> {
    const signal = this.stop.signal;
    for (;;) {
      await this.gate.enter(this.deadline, signal, this.refused);
      const sentAt = Date.now();
      let reply: Reply;
      try {
        reply = await this.attempt(body);
      } catch (error) {
        this.gate.leave(sentAt, false);
        throw error;
      }
      const verdict = judge(reply);
      if (verdict.kind === 'served') {
        this.gate.leave(sentAt, true);
        return reply;
      }
      this.gate.leave(sentAt, false);
      if (verdict.kind === 'unavailable') {
        // Down for a while, not a rate: this request waits, when it may, and the others find out for themselves.
        if (retries >= this.settings.maxRetries || Date.now() + verdict.hintMs > this.deadline) return reply;
        await sleep(verdict.hintMs, undefined, { signal });
        retries++;
        continue;
      }
      this.gate.refuse(sentAt, verdict.hintMs, this.settings);
      if (retries >= this.settings.maxRetries) {
        throw this.refused(Math.max(0, this.gate.notBefore - Date.now()), `refused ${retries + 1} times`);
      }
      if (verdict.kind === 'partly') return this.resendRefused(body, verdict.answered, reply, retries + 1);
      const calls = parse(body);
      if (Array.isArray(calls) && calls.length > 1) return this.split(calls, retries + 1);
      retries++;
    }
  }

  /** One HTTP request, with its own timeout. */
  private async attempt(body: string): Promise<Reply> {
    const controller = new AbortController();
    const outer = this.stop.signal;
    const onAbort = () => controller.abort(outer.reason);
    outer.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.settings.attemptTimeoutMs);
    try {
      const res = await this.fetchFn(this.url, { ...this.init, body, signal: controller.signal });
      return { status: res.status, statusText: res.statusText, headers: res.headers, text: await res.text() };
    } catch (error) {
      if (timedOut && !outer.aborted) {
        throw new TimeoutError({ body: (parse(body) ?? {}) as Record<string, unknown>, url: this.url.toString() });
      }
      throw error;
    } finally {
      clearTimeout(timer);
      outer.removeEventListener('abort', onAbort);
    }
  }

  /**
   * A batch refused whole: its calls again, one per request, one after the other, each through the gate. Past a
   * limit counted per call, a batch larger than what the endpoint allows at once would be refused whole every time;
   * in order, so that transactions still reach the node by nonce (see broadcastBatch).
   */
  private async split(calls: unknown[], retries: number): Promise<Reply> {
    const answers: unknown[] = [];
    let last: Reply | undefined;
    for (const call of calls) {
      last = await this.send(JSON.stringify(call), retries);
      if (last.status < 200 || last.status >= 300) return last;
      const answer = parse(last.text);
      if (answer === undefined) return last;
      answers.push(...(Array.isArray(answer) ? answer : [answer]));
    }
    return merged(last as Reply, answers);
  }

  /** Some calls of a batch answered, the others refused: those again (as one batch), then all the answers together. */
  private async resendRefused(body: string, answered: JsonRpcAnswer[], reply: Reply, retries: number): Promise<Reply> {
    const calls = parse(body);
    if (!Array.isArray(calls)) return this.send(body, retries);
    // Refused answers may come without their id (Alchemy's): the refused calls are those not answered.
    const answeredIds = new Set(answered.map((a) => JSON.stringify(a.id ?? null)));
    const refused = (calls as JsonRpcAnswer[]).filter((call) => !answeredIds.has(JSON.stringify(call.id ?? null)));
    if (refused.length === 0 || refused.length === calls.length) return this.send(body, retries);
    const rest = await this.send(JSON.stringify(refused), retries);
    if (rest.status < 200 || rest.status >= 300) return rest;
    const more = parse(rest.text);
    if (more === undefined) return rest;
    return merged(reply, [...answered, ...(Array.isArray(more) ? more : [more])]);
  }
}
