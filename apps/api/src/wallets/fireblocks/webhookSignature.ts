import { createVerify, type KeyObject } from 'node:crypto';

/**
 * Whether `signature` (the `Fireblocks-Signature` header: base64 of an RSA-SHA512 signature) signs exactly
 * `rawBody` with Fireblocks' webhook key (FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH), parsed once by the caller: parsing
 * its PEM costs as much as the verification itself.
 */
export function verifyFireblocksSignature(
  rawBody: Buffer,
  signature: string | undefined,
  publicKey: KeyObject,
): boolean {
  if (!signature || signature.length > 2048 || !/^[A-Za-z0-9+/=\s]+$/.test(signature)) return false;
  try {
    const verify = createVerify('RSA-SHA512');
    verify.update(rawBody);
    return verify.verify(publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
