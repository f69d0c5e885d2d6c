import { createPublicKey } from 'node:crypto';
import { pointAdd, pointFromScalar, recover } from 'tiny-secp256k1';
import { type Address, bytesToHex, getAddress, type Hex, hexToBytes, keccak256 } from 'viem';
import { BaseError } from '#api/errors/BaseError.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N / 2n;
/** The field prime of secp256k1. */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

/** A key whose public key is not a secp256k1 point (another KeySpec), or a DER blob that is not one. */
export class NotSecp256k1Error extends BaseError {
  override name = 'NotSecp256k1Error';
  readonly code = 'INTERNAL_ERROR';
}

/**
 * A signature from the key service that recovers to another address than the wallet's: never broadcast (the key
 * behind the alias was changed, or the wallet's row names another key).
 */
export class SignatureMismatchError extends BaseError {
  override name = 'SignatureMismatchError';
  readonly code = 'INTERNAL_ERROR';
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
 * The two operations on secp256k1 points that finding a recovery id takes (libsecp256k1's, through tiny-secp256k1):
 * in this thread (`inThisThread`), or in a thread of their own (curveThread.ts) so that a busy sender's event loop
 * does not run them.
 */
export interface CurveOps {
  /** The signer recovered from a compact signature with recovery id `id` (uncompressed), or null when there is none. */
  recover(digest: Uint8Array, compact: Uint8Array, id: 0 | 1): Uint8Array | null | Promise<Uint8Array | null>;
  /** `point` + t·G (uncompressed; t 32 bytes, not zero), or null at infinity. */
  addMultipleOfG(point: Uint8Array, t: Uint8Array): Uint8Array | null | Promise<Uint8Array | null>;
}

export const inThisThread = {
  recover: (digest: Uint8Array, compact: Uint8Array, id: 0 | 1): Uint8Array | null =>
    recover(digest, compact, id, false),
  // t·G from libsecp256k1's fixed-base tables, then one addition: cheaper than Q + t·G in one call.
  addMultipleOfG(point: Uint8Array, t: Uint8Array): Uint8Array | null {
    const tG = pointFromScalar(t, false);
    return tG && pointAdd(point, tG, false);
  },
} satisfies CurveOps;

/**
 * The Ethereum signature of `hash` from a DER ECDSA signature of it: s made low (EIP-2: n − s when above n/2, which
 * real networks require; KMS gives high s about half the time), and the recovery id whose recovered signer is
 * `address`. Throws SignatureMismatchError when neither is.
 */
export async function ethereumSignature(
  hash: Hex,
  der: Uint8Array,
  address: string,
  curve: CurveOps = inThisThread,
): Promise<{ r: Hex; s: Hex; yParity: 0 | 1 }> {
  const { r, s: rawS } = parseDerSignature(der);
  const s = rawS > HALF_N ? N - rawS : rawS;
  const compact = hexToBytes(`0x${r.toString(16).padStart(64, '0')}${s.toString(16).padStart(64, '0')}`);
  const yParity = await recoveryId(hexToBytes(hash), compact, r, address.toLowerCase(), curve);
  if (yParity === undefined) {
    throw new SignatureMismatchError(`the key's signature does not recover to the wallet's address ${address}`);
  }
  return { r: bytesToHex(compact.subarray(0, 32)), s: bytesToHex(compact.subarray(32)), yParity };
}

/**
 * The recovery id (0 or 1) of the compact signature `compact` (r, s) of `digest` whose signer has the address
 * `wanted` (lower case), or undefined when neither has. One recovery instead of two: the signers recovered with the
 * two ids, Q₀ and Q₁ (from R and −R), add up to −2·r⁻¹·z·G (Qₚ = r⁻¹·(s·Rₚ − z·G)), so when Q₀ is not the wallet's,
 * Q₁ is −(Q₀ + t·G) with t = 2·r⁻¹·z mod n: a multiple of G (fixed-base, from tables) and one addition, about a
 * third of a second recovery. The addresses are compared here, whichever thread did the curve operations.
 */
export async function recoveryId(
  digest: Uint8Array,
  compact: Uint8Array,
  r: bigint,
  wanted: string,
  curve: CurveOps = inThisThread,
): Promise<0 | 1 | undefined> {
  const signer = (point: Uint8Array | null) => (point ? `0x${keccak256(point.subarray(1)).slice(-40)}` : undefined);
  const q0 = await curve.recover(digest, compact, 0);
  if (!q0) return undefined; // no curve point has x = r: no recovery id gives a signer
  if (signer(q0) === wanted) return 0;
  const z = BigInt(bytesToHex(digest)) % N;
  const t = (2n * invert(r, N) * z) % N;
  let q1: Uint8Array | null = null;
  if (t !== 0n) {
    const sum = await curve.addMultipleOfG(q0, hexToBytes(`0x${t.toString(16).padStart(64, '0')}`));
    if (sum) q1 = negate(sum);
  }
  // z ≡ 0 (Q₁ = −Q₀) or Q₀ + t·G at infinity: ask the library, as rare as a hash collision.
  if (!q1) q1 = await curve.recover(digest, compact, 1);
  return signer(q1) === wanted ? 1 : undefined;
}

/** −(x, y) = (x, p − y), of an uncompressed point (0x04 ‖ x ‖ y). */
function negate(point: Uint8Array): Uint8Array {
  const y = BigInt(bytesToHex(point.subarray(33)));
  const negated = new Uint8Array(65);
  negated.set(point.subarray(0, 33));
  negated.set(hexToBytes(`0x${(y === 0n ? 0n : P - y).toString(16).padStart(64, '0')}`), 33);
  return negated;
}

/** a⁻¹ mod m (m prime, 0 < a < m), by the extended Euclidean algorithm. */
function invert(a: bigint, m: bigint): bigint {
  let r0 = a % m;
  let r1 = m;
  let s0 = 1n;
  let s1 = 0n;
  while (r1 !== 0n) {
    const q = r0 / r1;
    const r2 = r0 - q * r1;
    r0 = r1;
    r1 = r2;
    const s2 = s0 - q * s1;
    s0 = s1;
    s1 = s2;
  }
  return ((s0 % m) + m) % m;
}
