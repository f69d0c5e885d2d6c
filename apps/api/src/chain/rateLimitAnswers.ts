import { parseRetryAfter } from '@mountain/public-api-client';

// How hosted JSON-RPC providers say "past the rate limit", read from their answers (see rateLimits.ts for what the
// transport does about it).

/** A JSON-RPC error object as it comes in an answer. */
export interface RpcErrorObject {
  code?: unknown;
  message?: unknown;
  data?: unknown;
}

const RATE_LIMIT_TEXT = /\brate\b|ratelimit|request limit reached|too many requests/i;

/**
 * Whether a JSON-RPC error means "past the rate limit": code 429 (Alchemy, QuickNode), or code -32005 (Infura; the
 * same code also refuses an eth_getLogs over 10,000 results, so its text must say rate), -32007 (QuickNode) or
 * -32016 with a text about the rate, or Infura's `backoff_seconds`. Other codes are not read: a revert reason can
 * say anything.
 */
export function isRateLimitAnswer(error: RpcErrorObject | undefined | null): boolean {
  if (!error || typeof error !== 'object') return false;
  if (error.code === 429) return true;
  if (error.code !== -32005 && error.code !== -32007 && error.code !== -32016) return false;
  return (
    (typeof error.message === 'string' && RATE_LIMIT_TEXT.test(error.message)) || backoffSeconds(error) !== undefined
  );
}

/** Infura's suggested wait, in seconds: `data.backoff_seconds` (or `data.rate.backoff_seconds`, an older form). */
function backoffSeconds(error: RpcErrorObject): number | undefined {
  const data = error.data as { backoff_seconds?: unknown; rate?: { backoff_seconds?: unknown } } | undefined;
  const value = data?.backoff_seconds ?? data?.rate?.backoff_seconds;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** What the wrapper keeps of a response: viem reads only these. */
export interface Reply {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

export type JsonRpcAnswer = { id?: unknown; error?: RpcErrorObject };

/** An answer that is not (yet) final: refused whole, some calls of a batch refused, or 503 for a while. */
type Verdict =
  | { kind: 'served' }
  | { kind: 'refused'; hintMs: number | undefined }
  | { kind: 'partly'; hintMs: number | undefined; answered: JsonRpcAnswer[] }
  | { kind: 'unavailable'; hintMs: number };

export function judge(reply: Reply): Verdict {
  const { status } = reply;
  const header = parseRetryAfter(reply.headers.get('retry-after'));
  if (status === 429) return { kind: 'refused', hintMs: longest(header, bodyHint(parse(reply.text))) };
  if (status === 503 && header !== undefined) return { kind: 'unavailable', hintMs: header };
  // Cheap test first: most answers have no error at all.
  if (status < 200 || status >= 300 || !reply.text.includes('"error"')) return { kind: 'served' };
  const body = parse(reply.text);
  if (Array.isArray(body)) {
    const answers = body as JsonRpcAnswer[];
    if (!answers.some((a) => isRateLimitAnswer(a?.error))) return { kind: 'served' };
    const answered = answers.filter((a) => !isRateLimitAnswer(a?.error));
    return { kind: 'partly', hintMs: longest(header, bodyHint(body)), answered };
  }
  if (isRateLimitAnswer((body as JsonRpcAnswer | undefined)?.error)) {
    return { kind: 'refused', hintMs: longest(header, bodyHint(body)) };
  }
  return { kind: 'served' };
}

export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The longest `backoff_seconds` among the refusals of a body, in milliseconds. */
function bodyHint(body: unknown): number | undefined {
  let hint: number | undefined;
  for (const answer of (Array.isArray(body) ? body : [body]) as (JsonRpcAnswer | undefined)[]) {
    const seconds = answer?.error ? backoffSeconds(answer.error) : undefined;
    if (seconds !== undefined) hint = longest(hint, seconds * 1000);
  }
  return hint;
}

function longest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

/** One answer made of several: a batch answer of `answers`, with the headers of `last` (without its length). */
export function merged(last: Reply, answers: unknown[]): Reply {
  const headers = new Headers(last.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  return { status: 200, statusText: 'OK', headers, text: JSON.stringify(answers) };
}

/** The Response viem reads (status, headers and text; see rpcFetch). */
export function response(reply: Reply): Response {
  const { status, statusText, headers, text } = reply;
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText,
    headers,
    body: null,
    text: async () => text,
  } as unknown as Response;
}
