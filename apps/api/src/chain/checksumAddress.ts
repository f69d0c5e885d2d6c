import type { Address } from 'viem';
import { keccakBytes } from './keccak.ts';

const cache = new Map<string, Address>();
const CACHE_SIZE = 10_000;
/** The character codes of the result, '0x' first (filled per call: one string built at the end). */
const codes = new Uint16Array(42);
codes[0] = 48; // 0
codes[1] = 120; // x

/**
 * EIP-55 checksummed form of a 40-hex-digit address (lower or mixed case, without 0x): the same result as viem's
 * getAddress, for addresses already known to be well formed (decoded from ABI words).
 */
export function checksumAddress(hex40: string): Address {
  const lower = hex40.toLowerCase();
  const known = cache.get(lower);
  if (known) return known;
  const hash = keccakBytes(lower);
  for (let i = 0; i < 40; i++) {
    let c = lower.charCodeAt(i);
    // Letters a–f are upper-cased where the hash's nibble at the same position is 8 or more.
    if (c >= 97) {
      const byte = hash[i >> 1] as number;
      if (((i & 1) === 0 ? byte >> 4 : byte & 15) >= 8) c -= 32;
    }
    codes[i + 2] = c;
  }
  const out = String.fromCharCode.apply(null, codes as unknown as number[]) as Address;
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(lower, out);
  return out;
}
