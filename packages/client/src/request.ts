// Sends one operation's request with the client's credentials, retrying what may succeed when sent again, and
// turns every failure into a MountainError subclass.
import { ConnectionError, errorFromResponse, MountainError, TimeoutError } from './errors.ts';
import type { ClientConfig, RequestOptions } from './options.ts';
import { backoffDelay, isRetryableStatus, MAX_RETRY_AFTER_MS, parseRetryAfter, sleep } from './retry.ts';

/** One request to the API, before credentials and retries. */
export interface ApiRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
}

interface Failure {
  error: MountainError;
  retryable: boolean;
  retryAfterMs?: number | undefined;
}

/** Sends `request`, retrying as configured; resolves with the parsed 2xx body. */
export async function sendRequest<T>(config: ClientConfig, request: ApiRequest, options: RequestOptions): Promise<T> {
  const maxRetries = options.maxRetries ?? config.maxRetries;
  const timeout = options.timeout ?? config.timeout;
  const url = new URL(`${config.baseUrl}${request.path}`);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { ...config.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body);
  }

  for (let retry = 0; ; retry++) {
    options.signal?.throwIfAborted();
    const outcome = await attempt<T>(config.fetch, url, { method: request.method, headers, body }, timeout, options);
    if ('value' in outcome) return outcome.value;
    const { error, retryable, retryAfterMs } = outcome;
    if (!retryable || retry >= maxRetries) throw error;
    if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) throw error;
    await sleep(
      retryAfterMs ?? backoffDelay(retry, config.initialRetryDelayMs, config.maxRetryDelayMs),
      options.signal,
    );
  }
}

async function attempt<T>(
  fetchFn: typeof fetch,
  url: URL,
  init: RequestInit,
  timeout: number,
  options: RequestOptions,
): Promise<{ value: T } | Failure> {
  // One controller per attempt: it ends the attempt on timeout or when the caller's signal aborts.
  const controller = new AbortController();
  const timedOut = new Error(`No answer within ${timeout} ms`);
  const timer = setTimeout(() => controller.abort(timedOut), timeout);
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await fetchFn(url, { ...init, signal: controller.signal });
    const text = await response.text();
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (response.ok) return { value: parseSuccess<T>(text, response.status, requestId) };
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    return {
      error: errorFromResponse(response.status, text, requestId, retryAfterMs),
      retryable: isRetryableStatus(response.status),
      retryAfterMs,
    };
  } catch (cause) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (cause instanceof MountainError) throw cause;
    const message = `${init.method} ${url.pathname} failed`;
    if (controller.signal.reason === timedOut) {
      return {
        error: new TimeoutError({ code: 'TIMEOUT', message: `${message}: ${timedOut.message}`, cause }),
        retryable: true,
      };
    }
    const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : '';
    return {
      error: new ConnectionError({ code: 'CONNECTION_ERROR', message: `${message}: ${reason || 'no answer'}`, cause }),
      retryable: true,
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function parseSuccess<T>(text: string, status: number, requestId: string | undefined): T {
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new MountainError({
      status,
      code: 'INVALID_RESPONSE',
      message: 'The answer is not JSON',
      requestId,
      body: text,
      cause,
    });
  }
}
