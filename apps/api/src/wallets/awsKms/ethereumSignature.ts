import { createPublicKey } from 'node:crypto';
import { recover } from 'tiny-secp256k1';
import { type Address, bytesToHex, getAddress, type Hex, hexToBytes, keccak256 } from 'viem';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N / 2n;

/** A key whose public key is not a secp256k1 point (another KeySpec), or a DER blob that is not one. */
export class NotSecp256k1Error extends Error {
  override name = 'NotSecp256k1Error';
}

/**
 * A signature from the key service that recovers to another address than the wallet's: never broadcast (the key
 * behind the alias was changed, or the wallet's row names another key).
 */
export class SignatureMismatchError extends Error {
  override name = 'SignatureMismatchError';
}

/** The Ethereum address of a DER SubjectPublicKeyInfo on secp256k1 (what KMS's GetPublicKey answers). */
export function addressOfPublicKey(spki: Uint8Array): Address {
  let jwk: { crv?: string; x?: string; y?: string };
  try {
    const key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
    if (key.asymmetricKeyDetails?.namedCurve !== 'secp256k1') {
      throw new NotSecp256k1Error(
        `the public key is not on secp256k1 (${key.asymmetricKeyDetails?.namedCurve ?? key.asymmetricKeyType})`,
      );
    }
    jwk = key.export({ format: 'jwk' });
  } catch (error) {
    if (error instanceof NotSecp256k1Error) throw error;
    throw new NotSecp256k1Error('the public key is not a DER SubjectPublicKeyInfo', { cause: error });
  }
  const point = Buffer.concat([Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]);
  return getAddress(`0x${keccak256(point).slice(-40)}`);
}

/** r and s of a DER `Ecdsa-Sig-Value` (SEQUENCE { INTEGER r, INTEGER s }), strictly parsed. */
export function parseDerSignature(der: Uint8Array): { r: bigint; s: bigint } {
  const bad = () => new NotSecp256k1Error('the signature is not a DER ECDSA signature');
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) throw bad();
  let at = 2;
  const integer = () => {
    if (der[at] !== 0x02) throw bad();
    const length = der[at + 1] as number;
    if (length < 1 || length > 33 || at + 2 + length > der.length) throw bad();
    const value = BigInt(bytesToHex(der.subarray(at + 2, at + 2 + length)));
    at += 2 + length;
    return value;
  };
  const r = integer();
  const s = integer();
  if (at !== der.length || r <= 0n || r >= N || s <= 0n || s >= N) throw bad();
  return { r, s };
}

/**
 * The Ethereum signature of `hash` from a DER ECDSA signature of it: s made low (EIP-2: n − s when above n/2, which
 * real networks require; KMS gives high s about half the time), and the recovery id found by recovering the
 * signer with each and keeping the one that gives `address`. Throws SignatureMismatchError when neither does.
 */
export function ethereumSignature(hash: Hex, der: Uint8Array, address: string): { r: Hex; s: Hex; yParity: 0 | 1 } {
  const { r, s: rawS } = parseDerSignature(der);
  const s = rawS > HALF_N ? N - rawS : rawS;
  const compact = hexToBytes(`0x${r.toString(16).padStart(64, '0')}${s.toString(16).padStart(64, '0')}`);
  const digest = hexToBytes(hash);
  const wanted = address.toLowerCase();
  for (const yParity of [0, 1] as const) {
    const point = recover(digest, compact, yParity, false);
    if (point && `0x${keccak256(point.subarray(1)).slice(-40)}` === wanted) {
      return { r: bytesToHex(compact.subarray(0, 32)), s: bytesToHex(compact.subarray(32)), yParity };
    }
  }
  throw new SignatureMismatchError(`the key's signature does not recover to the wallet's address ${address}`);
}
