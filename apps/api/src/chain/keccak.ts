import { createKeccak } from 'hash-wasm';
import type { Hex } from 'viem';

// One Keccak-256 hasher, reused synchronously: WebAssembly, about 1 µs for a transaction or an address, where
// viem's JavaScript Keccak takes 15–35 µs. Every transaction a sender signs is hashed twice (to sign it, and for
// its hash), and a backfill checksums one or more addresses per event.
const keccak = await createKeccak(256);

/** Keccak-256 of `data`: bytes, or a string's UTF-8 bytes. */
export function keccakBytes(data: Uint8Array | string): Uint8Array {
  keccak.init();
  keccak.update(data);
  return keccak.digest('binary');
}

/** Keccak-256 of the bytes a 0x-prefixed hex string holds, as viem's `keccak256(hex, to)` gives it. */
export function keccakOfHex(hex: Hex, to: 'bytes'): Uint8Array;
export function keccakOfHex(hex: Hex, to?: 'hex'): Hex;
export function keccakOfHex(hex: Hex, to: 'hex' | 'bytes' = 'hex'): Hex | Uint8Array {
  keccak.init();
  keccak.update(Buffer.from(hex.slice(2), 'hex'));
  return to === 'bytes' ? keccak.digest('binary') : `0x${keccak.digest('hex')}`;
}
