import { fromBase64, toBase64 } from './encoding.ts';
import { InvalidSecretError } from './errors.ts';

const PREFIX = 'whsec_';

/** Decodes `whsec_<base64>` into the HMAC key, or throws {@link InvalidSecretError}. */
export function parseSecret(secret: unknown): Uint8Array<ArrayBuffer> {
  if (typeof secret !== 'string') throw new InvalidSecretError(`expected a string, got ${typeof secret}`);
  if (!secret.startsWith(PREFIX)) throw new InvalidSecretError('it must start with "whsec_"');
  const key = fromBase64(secret.slice(PREFIX.length));
  if (key === undefined) throw new InvalidSecretError('the part after "whsec_" is not standard base64');
  if (key.length === 0) throw new InvalidSecretError('the key is empty');
  return key;
}

/**
 * The secret a receiver verifies with, or several while a rotation rolls out (a delivery verifies when a signature
 * matches any of them).
 *
 * @example
 * ```ts
 * import type { WebhookSecrets } from '@mountain/webhook-sdk';
 *
 * const secrets: WebhookSecrets = [process.env.NEW_SECRET ?? '', process.env.OLD_SECRET ?? ''].filter(Boolean);
 * ```
 */
export type WebhookSecrets = string | readonly string[];

/** The keys of one secret or several; an empty list is a configuration mistake. */
export function parseSecrets(secret: unknown): Uint8Array<ArrayBuffer>[] {
  if (!Array.isArray(secret)) return [parseSecret(secret)];
  if (secret.length === 0) throw new InvalidSecretError('the list of secrets is empty');
  return secret.map((s: unknown) => parseSecret(s));
}

/**
 * Creates a new random secret: `whsec_` and the base64 of 32 random bytes from the platform's CSPRNG.
 *
 * @returns A secret such as `whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6eDGZ0b1pHU=`.
 * @example
 * ```ts
 * import { generateSecret } from '@mountain/webhook-sdk';
 *
 * const secret = generateSecret(); // store it; share it with the receiver once
 * ```
 */
export function generateSecret(): string {
  return PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

interface NodeHmac {
  createHmac(
    algorithm: 'sha256',
    key: Uint8Array,
  ): {
    update(data: Uint8Array): { digest(encoding: 'base64'): string };
  };
}

/**
 * Node's own crypto module when running on Node (`process.getBuiltinModule`, Node 20.16 and later), without an import
 * that other runtimes or bundlers would have to resolve.
 */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeHmac | undefined;

/**
 * HMAC-SHA256 of `message` with `key`, as base64. On Node it is computed synchronously with `node:crypto` (a
 * WebCrypto key import and sign job cost about ten times as much per call, which shows when a server signs
 * thousands of webhooks a second); elsewhere with WebCrypto, so it works in every runtime. Both give the same bytes.
 */
export async function hmacSha256Base64(
  key: Uint8Array<ArrayBuffer>,
  message: Uint8Array<ArrayBuffer>,
): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHmac('sha256', key).update(message).digest('base64');
  return webCryptoHmacSha256Base64(key, message);
}

/** The WebCrypto computation of {@link hmacSha256Base64}; exported for the test that both agree. */
export async function webCryptoHmacSha256Base64(
  key: Uint8Array<ArrayBuffer>,
  message: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, message)));
}
