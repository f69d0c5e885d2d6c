import { createVerify, type KeyObject } from 'node:crypto';
import { decodeCanonical } from '#api/crypto/canonicalBase64.ts';

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
  if (!signature || signature.length > 2048) return false;
  // Only the canonical form (padded base64, nothing else in it): one signature, one way to write it.
  const presented = decodeCanonical(signature, 'base64');
  if (!presented) return false;
  try {
    const verify = createVerify('RSA-SHA512');
    verify.update(rawBody);
    return verify.verify(publicKey, presented);
  } catch {
    return false;
  }
}
