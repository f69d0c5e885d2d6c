import { createKeccak } from 'hash-wasm';
import type { Address } from 'viem';

// One Keccak-256 hasher, reused synchronously (WebAssembly: several times faster than a JavaScript Keccak; a
// backfill checksums one or more addresses per event).
const keccak = await createKeccak(256);
const cache = new Map<string, Address>();
const CACHE_SIZE = 10_000;

/**
 * EIP-55 checksummed form of a 40-hex-digit address (lower or mixed case, without 0x): the same result as viem's
 * getAddress, for addresses already known to be well formed (decoded from ABI words).
 */
export function checksumAddress(hex40: string): Address {
  const lower = hex40.toLowerCase();
  const known = cache.get(lower);
  if (known) return known;
  keccak.init();
  keccak.update(lower);
  const hash = keccak.digest('hex');
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower.charCodeAt(i);
    // Letters a–f are upper-cased where the hash's nibble at the same position is 8 or more.
    out += c >= 97 && Number.parseInt(hash[i] as string, 16) >= 8 ? String.fromCharCode(c - 32) : lower[i];
  }
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(lower, out as Address);
  return out as Address;
}
