import { concatBytes, utf8 } from './encoding.ts';
import { assertKnownOptions } from './options.ts';
import { hmacSha256Base64, parseSecret } from './secret.ts';

/**
 * The three Standard Webhooks headers of one delivery, ready to pass to `fetch` or `setHeader`.
 * (A type alias, not an interface, so it is assignable to `Record<string, string>` and `HeadersInit`.)
 *
 * @example
 * ```ts
 * import { type SignedHeaders, sign } from '@mountain/webhook-sdk';
 *
 * const headers: SignedHeaders = await sign({ id: 'msg_1', body: '{}', secret });
 * console.log(headers['webhook-signature']); // v1,…
 * ```
 */
export type SignedHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/**
 * What {@link sign} signs. Unknown properties throw.
 *
 * @example
 * ```ts
 * import { type SignParams, sign } from '@mountain/webhook-sdk';
 *
 * const params: SignParams = { id: 'msg_1', timestamp: new Date(), body: '{"hello":"world"}', secret };
 * const headers = await sign(params);
 * ```
 */
export interface SignParams {
  /** The message id; keep it stable across retries of one delivery so receivers can de-duplicate. */
  id: string;
  /** When the delivery is sent: Unix seconds or a `Date`. Default: now. */
  timestamp?: number | Date;
  /** The exact bytes (or text, sent as UTF-8) that will be the request body. */
  body: string | Uint8Array;
  /** One `whsec_` secret, or several during a rotation: the header then lists one `v1,` entry per secret. */
  secret: string | readonly string[];
}

const SIGN_PARAMS = ['id', 'timestamp', 'body', 'secret'] as const;

/** The signed content of Standard Webhooks: `${id}.${timestamp}.${body}`, body bytes kept as they are. */
export function signedContent(id: string, timestamp: number, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return typeof body === 'string' ? utf8(`${id}.${timestamp}.${body}`) : concatBytes(utf8(`${id}.${timestamp}.`), body);
}

export function unixSeconds(timestamp: number | Date): number {
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new TypeError('sign: timestamp must be a valid Date or a non-negative integer of Unix seconds');
  }
  return seconds;
}

/**
 * Signs one delivery per Standard Webhooks and returns its headers. Mountain's servers sign every webhook with this
 * function, and tests can use it to forge valid deliveries.
 *
 * @throws {@link InvalidSecretError} when a secret is not `whsec_<base64>`; `TypeError` on other bad parameters.
 * @example
 * ```ts
 * import { generateSecret, sign } from '@mountain/webhook-sdk';
 *
 * const secret = generateSecret();
 * const body = JSON.stringify({ hello: 'world' });
 * const headers = await sign({ id: 'msg_1', body, secret });
 * await fetch('http://127.0.0.1:3000/webhooks', {
 *   method: 'POST',
 *   headers: { ...headers, 'content-type': 'application/json' },
 *   body,
 * });
 * ```
 */
export async function sign(params: SignParams): Promise<SignedHeaders> {
  assertKnownOptions(params, SIGN_PARAMS, 'sign');
  if (params === undefined) throw new TypeError('sign: parameters are required');
  const { id, body } = params;
  if (typeof id !== 'string' || id.length === 0) throw new TypeError('sign: id must be a non-empty string');
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError('sign: body must be a string or a Uint8Array');
  }
  const secrets = typeof params.secret === 'string' ? [params.secret] : params.secret;
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError('sign: secret must be a whsec_ string or a non-empty array of them');
  }
  const timestamp = unixSeconds(params.timestamp ?? new Date());
  const content = signedContent(id, timestamp, body);
  const signatures = await Promise.all(
    secrets.map(async (secret: unknown) => `v1,${await hmacSha256Base64(parseSecret(secret), content)}`),
  );
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}
