import { createECDH, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { sign } from 'tiny-secp256k1';

/** The order of secp256k1's group. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The order of NIST P-256's group (ECC_NIST_P256 keys). */
export const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** The curves the simulator makes keys on: KMS's ECC_SECG_P256K1 and ECC_NIST_P256, by their OpenSSL names. */
export type Curve = 'secp256k1' | 'prime256v1';

/** An elliptic-curve key pair as the simulated KMS keeps it (the private scalar never leaves the simulator). */
export interface EcKey {
  readonly curve: Curve;
  /** The private scalar, 32 bytes. */
  readonly d: Buffer;
  /** The public key as KMS gives it: DER-encoded X.509 SubjectPublicKeyInfo. */
  readonly spki: Buffer;
}

export function generateEcKey(curve: Curve = 'secp256k1'): EcKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curve });
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    curve,
    d: Buffer.from(jwk.d as string, 'base64url'),
    spki: publicKey.export({ type: 'spki', format: 'der' }),
  };
}

/** A key from its stored form (a state file): the SPKI is derived again from the scalar. */
export function ecKeyFromScalar(curve: Curve, d: Buffer): EcKey {
  const ecdh = createECDH(curve);
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const jwk = {
    kty: 'EC',
    crv: curve === 'secp256k1' ? 'secp256k1' : 'P-256',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33, 65).toString('base64url'),
  };
  return { curve, d, spki: createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' }) };
}

/**
 * ECDSA over a 32-byte digest with fresh randomness, as an HSM signs: the signature is not deterministic, and its s
 * is high about half the time (KMS does not normalise it). Answers the DER `Ecdsa-Sig-Value` (SEQUENCE of r, s).
 * secp256k1 signs through libsecp256k1 (tiny-secp256k1, with random extra entropy) and then takes n − s for half of
 * the signatures, both being valid; P-256 through the native curve with a random k.
 */
export function signDigest(key: EcKey, digest: Buffer): Buffer {
  if (key.curve === 'secp256k1') {
    const compact = sign(digest, key.d, randomBytes(32));
    const r = toBigInt(Buffer.from(compact.subarray(0, 32)));
    const s = toBigInt(Buffer.from(compact.subarray(32)));
    return derSignature(r, (randomBytes(1)[0] as number) & 1 ? SECP256K1_N - s : s);
  }
  const n = P256_N;
  const z = toBigInt(digest) % n;
  const d = toBigInt(key.d);
  for (;;) {
    const kBytes = randomBytes(32);
    const k = toBigInt(kBytes);
    if (k === 0n || k >= n) continue;
    // k·G through the native curve: the x of the ECDH "public key" of k.
    const ecdh = createECDH(key.curve);
    ecdh.setPrivateKey(kBytes);
    const r = toBigInt(ecdh.getPublicKey().subarray(1, 33)) % n;
    if (r === 0n) continue;
    const s = (modPow(k, n - 2n, n) * ((z + r * d) % n)) % n;
    if (s === 0n) continue;
    return derSignature(r, s);
  }
}

/** DER `SEQUENCE { INTEGER r, INTEGER s }`. */
export function derSignature(r: bigint, s: bigint): Buffer {
  const integer = (n: bigint) => {
    let bytes = Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
    while (bytes.length > 1 && bytes[0] === 0 && ((bytes[1] as number) & 0x80) === 0) bytes = bytes.subarray(1);
    if (((bytes[0] as number) & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
    return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
  };
  const body = Buffer.concat([integer(r), integer(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

function toBigInt(bytes: Buffer): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`);
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}
