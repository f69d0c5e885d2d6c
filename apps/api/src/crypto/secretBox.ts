import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { BaseError } from '#api/errors/BaseError.ts';

/** A box sealed before master keys had ids: version (1) | iv | tag | ciphertext. It names no key. */
const LEGACY_VERSION = 1;
/** version (2) | key id (8) | iv (12) | tag (16) | ciphertext. */
export const VERSION = 2;
export const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** One master key and its id: the first 8 bytes of HMAC-SHA256(key, "mountain master key id"), in hex. */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * The deployment's master keys (MASTER_KEYS, or MASTER_KEY as a ring of one): new secrets are sealed under the
 * current key, and a secret sealed under any key of the ring opens. A rotation re-seals every secret under the
 * current key (crypto/rotateMasterKey.ts), after which the older keys can leave the ring.
 */
export interface MasterKeyRing {
  readonly current: MasterKey;
  /** Every key, the current one first. */
  readonly keys: readonly MasterKey[];
}

/** What seals and opens: a ring, or a single key (a ring of one, as tests and tools hold it). */
export type MasterKeys = MasterKeyRing | Buffer;

/** A secret box that cannot be opened, or a ring that cannot be made. The message names key ids, never a key. */
export class SecretBoxError extends BaseError {
  override name = 'SecretBoxError';
  readonly code = 'INTERNAL_ERROR';
}

/** The id a key is named by in the boxes it seals: derived from the key, so it needs no configuration. */
export function masterKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('mountain master key id').digest().subarray(0, KEY_ID_BYTES).toString('hex');
}

/** A ring of `keys`, the current one first (at least one; no key twice). */
export function masterKeyRing(keys: readonly Buffer[]): MasterKeyRing {
  const ring = keys.map((key) => Object.freeze({ id: masterKeyId(key), key }));
  const [current] = ring;
  if (!current) throw new SecretBoxError('A master key ring needs at least one key');
  if (new Set(ring.map((k) => k.id)).size !== ring.length)
    throw new SecretBoxError('A master key is in the ring twice');
  return Object.freeze({ current, keys: Object.freeze(ring) });
}

const singleKeyRings = new WeakMap<Buffer, MasterKeyRing>();

export function ringOf(keys: MasterKeys): MasterKeyRing {
  if (!Buffer.isBuffer(keys)) return keys;
  let ring = singleKeyRings.get(keys);
  if (!ring) {
    ring = masterKeyRing([keys]);
    singleKeyRings.set(keys, ring);
  }
  return ring;
}

/** The id of the key a box was sealed under; undefined for a legacy box, which names none. */
export function sealedKeyId(sealed: Buffer): string | undefined {
  if (sealed[0] !== VERSION) return undefined;
  return sealed.subarray(1, 1 + KEY_ID_BYTES).toString('hex');
}

/** Whether the box is sealed under the ring's current key (a legacy box never is: it names no key). */
export function isSealedUnderCurrent(keys: MasterKeys, sealed: Buffer): boolean {
  return sealedKeyId(sealed) === ringOf(keys).current.id;
}

/**
 * Encrypts a secret at rest with AES-256-GCM under the ring's current key. `context` is bound as additional data
 * (with the box's header), so a ciphertext copied to another row (another context) no longer decrypts.
 * Layout: version (2) | key id (8) | iv (12) | tag (16) | ciphertext.
 */
export function seal(keys: MasterKeys, plaintext: string, context: string): Buffer {
  const { current } = ringOf(keys);
  const header = Buffer.concat([Buffer.from([VERSION]), Buffer.from(current.id, 'hex')]);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(Buffer.concat([header, Buffer.from(context)]));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([header, iv, cipher.getAuthTag(), body]);
}

/** Decrypts a box sealed under any key of the ring. */
export function open(keys: MasterKeys, sealed: Buffer, context: string): string {
  const ring = ringOf(keys);
  if (sealed[0] === LEGACY_VERSION) {
    // A legacy box names no key: it was sealed under the MASTER_KEY of its time, which the ring lists somewhere.
    // Each key is tried; GCM's tag tells the one that sealed it.
    for (const { key } of ring.keys) {
      try {
        return decrypt(key, sealed.subarray(1), Buffer.from(context));
      } catch {}
    }
    throw new SecretBoxError(
      `A secret sealed before master key ids opens under none of the ${ring.keys.length} configured master key(s) ` +
        `(ids ${ids(ring)})`,
    );
  }
  if (sealed[0] !== VERSION) throw new SecretBoxError(`Unknown secret box version ${sealed[0]}`);
  const id = sealedKeyId(sealed) as string;
  const found = ring.keys.find((k) => k.id === id);
  if (!found) {
    throw new SecretBoxError(
      `A secret is sealed under master key ${id}, which is not among the configured master keys (ids ${ids(ring)})`,
    );
  }
  const header = sealed.subarray(0, 1 + KEY_ID_BYTES);
  try {
    return decrypt(found.key, sealed.subarray(header.length), Buffer.concat([header, Buffer.from(context)]));
  } catch (error) {
    throw new SecretBoxError(`A secret sealed under master key ${id} does not open: it was altered or moved`, {
      cause: error,
    });
  }
}

const ids = (ring: MasterKeyRing) => ring.keys.map((k) => k.id).join(', ');

/** iv | tag | ciphertext under `key`, with `aad`. */
function decrypt(key: Buffer, box: Buffer, aad: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(0, IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(box.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(box.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
