import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 32;
const KEY_PATTERN = /^mtn_(test|live)_([0-9A-Za-z]{12})([0-9A-Za-z]{32})$/;

export type KeyMode = 'test' | 'live';

export interface IssuedKey {
  /** The full key: shown once, never stored. */
  key: string;
  lookupId: string;
  secretHash: Buffer;
  masked: string;
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** A new key `mtn_<mode>_<12 char lookup id><32 char secret>`; the database keeps only the lookup id and a hash. */
export function issueApiKey(mode: KeyMode): IssuedKey {
  const lookupId = randomBase62(LOOKUP_LENGTH);
  const key = `mtn_${mode}_${lookupId}${randomBase62(SECRET_LENGTH)}`;
  return { key, lookupId, secretHash: hashKey(key), masked: maskKey(mode, lookupId) };
}

export function maskKey(mode: KeyMode, lookupId: string): string {
  return `mtn_${mode}_${lookupId}${'*'.repeat(8)}`;
}

/** Splits a presented key; `undefined` when it is not shaped like one of ours. */
export function parseApiKey(key: string): { mode: KeyMode; lookupId: string } | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  return { mode: match[1] as KeyMode, lookupId: match[2] as string };
}

/** Constant-time check of a presented key against the stored hash. */
export function keyMatches(key: string, storedHash: Buffer): boolean {
  const presented = hashKey(key);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}
