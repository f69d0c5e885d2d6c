import { timingSafeEqual } from './encoding.ts';
import {
  InvalidPayloadError,
  InvalidTimestampError,
  MissingHeaderError,
  NoMatchingSignatureError,
  TimestampTooNewError,
  TimestampTooOldError,
  type WebhookHeaderName,
} from './errors.ts';
import type { WebhookEvent } from './events.ts';
import { assertFunction, assertKnownOptions, assertNonNegative } from './options.ts';
import { hmacSha256Base64, parseSecrets, type WebhookSecrets } from './secret.ts';
import { signedContent } from './sign.ts';

/**
 * Request headers in any common shape: a Fetch `Headers`, Node's `IncomingHttpHeaders`, or a plain object
 * whose names may use any case.
 *
 * @example
 * ```ts
 * import type { WebhookRequestHeaders } from '@mountain/webhook-sdk';
 *
 * const fromFetch: WebhookRequestHeaders = request.headers;
 * const fromNode: WebhookRequestHeaders = req.headers;
 * const literal: WebhookRequestHeaders = { 'Webhook-Id': 'msg_1', 'Webhook-Timestamp': '1700000000' };
 * ```
 */
export type WebhookRequestHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | number | readonly string[] | undefined>>;

/**
 * Options of {@link verify} (and of every ready-made handler).
 *
 * @example
 * ```ts
 * import { type VerifyOptions, verify } from '@mountain/webhook-sdk';
 *
 * const options: VerifyOptions = { tolerance: 60 }; // accept deliveries signed at most a minute away from now
 * const event = await verify(rawBody, headers, secret, options);
 * ```
 */
export interface VerifyOptions {
  /** How far, in seconds, `webhook-timestamp` may be from now in either direction. Default 300 (5 minutes). */
  tolerance?: number;
  /** The receiver's clock in milliseconds since the epoch, like `Date.now` (the default). Useful in tests. */
  now?: () => number;
}

export const VERIFY_OPTIONS = ['tolerance', 'now'] as const;
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** A verified delivery: the parsed payload and the signed headers' id and time. */
export interface VerifiedDelivery<T> {
  payload: T;
  id: string;
  /** The signed `webhook-timestamp`, Unix seconds. */
  timestamp: number;
}

export function checkVerifyOptions(options: VerifyOptions | undefined, where: string): void {
  assertNonNegative(options?.tolerance, 'tolerance', where);
  assertFunction(options?.now, 'now', where);
}

function readHeader(headers: WebhookRequestHeaders, name: WebhookHeaderName): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    const value = record[key];
    // Node joins repeated headers with ", "; do the same for arrays so both shapes parse alike.
    if (Array.isArray(value)) return value.join(', ');
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return undefined;
}

function requireHeader(headers: WebhookRequestHeaders, name: WebhookHeaderName): string {
  const value = readHeader(headers, name)?.trim();
  if (!value) throw new MissingHeaderError(name);
  return value;
}

/** The `v1` signatures of a `webhook-signature` header: space-separated `version,base64` entries. */
function v1Signatures(header: string): string[] {
  const signatures: string[] = [];
  for (const entry of header.split(/\s+/)) {
    // A trailing comma appears when a proxy joined repeated headers with ", ".
    const [version, signature] = entry.replace(/,$/, '').split(',', 2);
    if (version === 'v1' && signature) signatures.push(signature);
  }
  return signatures;
}

function parsePayload<T>(rawBody: string | Uint8Array): T {
  let text: string;
  try {
    text = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  } catch (cause) {
    throw new InvalidPayloadError('the body is not valid UTF-8', { cause });
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (cause) {
    throw new InvalidPayloadError('the body is not valid JSON', { cause });
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new InvalidPayloadError('the body is not a JSON object');
  }
  return payload as T;
}

/** The checks of {@link verify}, also giving the id and timestamp the handlers pass to event handlers. */
export async function verifyDelivery<T>(
  rawBody: string | Uint8Array,
  headers: WebhookRequestHeaders,
  keys: readonly Uint8Array<ArrayBuffer>[],
  options: VerifyOptions | undefined,
): Promise<VerifiedDelivery<T>> {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError(
      `verify: rawBody must be the raw request body as a string or Uint8Array, got ${rawBody === null ? 'null' : typeof rawBody} ` +
        '(did a JSON body parser run before verification?)',
    );
  }
  if (headers === null || typeof headers !== 'object') throw new TypeError('verify: headers must be an object');
  const id = requireHeader(headers, 'webhook-id');
  const timestampHeader = requireHeader(headers, 'webhook-timestamp');
  const signatureHeader = requireHeader(headers, 'webhook-signature');

  const timestamp = Number(timestampHeader);
  if (!/^\d+$/.test(timestampHeader) || !Number.isSafeInteger(timestamp)) {
    throw new InvalidTimestampError(timestampHeader);
  }
  const tolerance = options?.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options?.now ?? Date.now)() / 1000);
  if (now - timestamp > tolerance) throw new TimestampTooOldError(timestamp, now, tolerance);
  if (timestamp - now > tolerance) throw new TimestampTooNewError(timestamp, now, tolerance);

  const content = signedContent(id, timestamp, rawBody);
  const expected = await Promise.all(keys.map((key) => hmacSha256Base64(key, content)));
  // Any valid entry for any known secret is enough: during a rotation the sender signs with the old and the new
  // secret, and a receiver rolling out the new one may know both.
  const signatures = v1Signatures(signatureHeader);
  if (!signatures.some((signature) => expected.some((e) => timingSafeEqual(signature, e)))) {
    throw new NoMatchingSignatureError();
  }
  return { payload: parsePayload<T>(rawBody), id, timestamp };
}

/**
 * Verifies a webhook delivery per Standard Webhooks and returns its parsed payload.
 *
 * Pass the body exactly as received: bytes or text, never a re-serialised object (`JSON.stringify(req.body)`
 * changes whitespace or key order and then no signature matches).
 *
 * @param rawBody The raw request body.
 * @param headers The request headers: `Headers`, Node's `req.headers`, or a plain object in any case.
 * @param secret The subscription's `webhookSecret` or the endpoint's `secret` (`whsec_…`), or several while you
 *   roll out a rotated secret: any of them verifies.
 * @param options `tolerance` in seconds (default 300) and a `now` clock; unknown options throw.
 * @returns The payload, typed as {@link WebhookEvent} unless you pass another type.
 * @throws A {@link WebhookVerificationError} subclass per failure: {@link MissingHeaderError},
 *   {@link InvalidTimestampError}, {@link TimestampTooOldError}, {@link TimestampTooNewError},
 *   {@link NoMatchingSignatureError}, {@link InvalidSecretError}, {@link InvalidPayloadError}.
 * @example
 * ```ts
 * import { verify, WebhookVerificationError } from '@mountain/webhook-sdk';
 *
 * const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', body: '{}' });
 * try {
 *   const event = await verify(await request.text(), request.headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6eDGZ0b1pHU=');
 *   console.log(event.type, event.data.transactionHash);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) console.log(error.code); // MISSING_HEADER
 *   else throw error;
 * }
 * ```
 */
export async function verify<T = WebhookEvent>(
  rawBody: string | Uint8Array,
  headers: WebhookRequestHeaders,
  secret: WebhookSecrets,
  options?: VerifyOptions,
): Promise<T> {
  assertKnownOptions(options, VERIFY_OPTIONS, 'verify');
  checkVerifyOptions(options, 'verify');
  const keys = parseSecrets(secret);
  return (await verifyDelivery<T>(rawBody, headers, keys, options)).payload;
}
