import { createPublicKey, createVerify, type KeyObject } from 'node:crypto';

/** The webhook key, parsed once: parsing its PEM cost as much as the verification itself, at every webhook. */
const parsed = new Map<string, KeyObject>();
const publicKeyOf = (pem: string): KeyObject => {
  let key = parsed.get(pem);
  if (!key) {
    key = createPublicKey(pem);
    parsed.set(pem, key);
  }
  return key;
};

/**
 * Whether `signature` (the `Fireblocks-Signature` header: base64 of an RSA-SHA512 signature) signs exactly
 * `rawBody` with Fireblocks' webhook key (FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH).
 */
export function verifyFireblocksSignature(
  rawBody: Buffer,
  signature: string | undefined,
  publicKeyPem: string,
): boolean {
  if (!signature || signature.length > 2048 || !/^[A-Za-z0-9+/=\s]+$/.test(signature)) return false;
  try {
    const verify = createVerify('RSA-SHA512');
    verify.update(rawBody);
    return verify.verify(publicKeyOf(publicKeyPem), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
