import { type AbiEvent, type AbiParameter, type Hex, keccak256, numberToHex, stringToHex } from 'viem';
import { checksumAddress } from '#api/chain/checksumAddress.ts';

// The values a subscription's filters and conditions name: what kind each parameter type is, a value's canonical
// form and its topic, the operators that fit. Shared by the check of a watch (watch.ts) and the scan's matchers
// (scanning/logMatchers.ts).

export const CONDITION_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];
export type FilterValue = string | number | boolean;
export type Filters = Record<string, FilterValue[]>;
export interface Condition {
  field: string;
  op: ConditionOp;
  value: FilterValue | FilterValue[];
}

/** What a parameter's values are, for filters and conditions. */
export type Kind =
  | { kind: 'address' }
  | { kind: 'bool' }
  | { kind: 'int'; signed: boolean; bits: number }
  | { kind: 'fixedBytes'; size: number }
  | { kind: 'bytes' }
  | { kind: 'string' }
  | { kind: 'other' };

export function kindOf(type: string): Kind {
  if (type === 'address') return { kind: 'address' };
  if (type === 'bool') return { kind: 'bool' };
  if (type === 'string') return { kind: 'string' };
  if (type === 'bytes') return { kind: 'bytes' };
  const integer = /^(u?)int(\d*)$/.exec(type);
  if (integer) return { kind: 'int', signed: integer[1] === '', bits: Number(integer[2] || 256) };
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed) return { kind: 'fixedBytes', size: Number(fixed[1]) };
  return { kind: 'other' };
}

export const KIND_WORDS: Record<Kind['kind'], string> = {
  address: 'an address',
  bool: 'a bool',
  int: 'an integer',
  fixedBytes: 'fixed-size bytes',
  bytes: 'bytes',
  string: 'a string',
  other: 'an array or a tuple',
};

/** The key of each argument in decodedLog: its name, or its position when a parameter of the event has none. */
export function keysOf(event: AbiEvent): string[] {
  const named = event.inputs.length > 0 && event.inputs.every((input) => input.name);
  return event.inputs.map((input, i) => (named ? (input.name as string) : String(i)));
}

export const isIndexed = (input: AbiParameter) => 'indexed' in input && input.indexed === true;

/** A value in its canonical form for a kind, or a message saying why it is not one. */
export function canonical(kind: Kind, value: FilterValue): { value: FilterValue } | { problem: string } {
  switch (kind.kind) {
    case 'address':
      return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)
        ? { value: checksumAddress(value.slice(2)) }
        : { problem: 'is not an address (0x and 40 hex digits)' };
    case 'bool':
      if (typeof value === 'boolean') return { value };
      return value === 'true' || value === 'false' ? { value: value === 'true' } : { problem: 'is not true or false' };
    case 'int': {
      const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
      if (typeof text !== 'string' || !/^-?\d{1,78}$/.test(text)) {
        return { problem: 'is not an integer (a decimal string, or a number up to 2^53)' };
      }
      const n = BigInt(text);
      const min = kind.signed ? -(2n ** BigInt(kind.bits - 1)) : 0n;
      const max = kind.signed ? 2n ** BigInt(kind.bits - 1) - 1n : 2n ** BigInt(kind.bits) - 1n;
      if (n < min || n > max) return { problem: `is outside the range of ${kind.signed ? '' : 'u'}int${kind.bits}` };
      return { value: n.toString() };
    }
    case 'fixedBytes':
      return typeof value === 'string' && new RegExp(`^0x[0-9a-fA-F]{${kind.size * 2}}$`).test(value)
        ? { value: value.toLowerCase() }
        : { problem: `is not bytes${kind.size} (0x and ${kind.size * 2} hex digits)` };
    case 'bytes':
      return typeof value === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(value)
        ? { value: value.toLowerCase() }
        : { problem: 'is not bytes (0x and an even number of hex digits)' };
    case 'string':
      return typeof value === 'string' ? { value } : { problem: 'is not a string' };
    default:
      return { problem: 'cannot be compared' };
  }
}

/** The topic of an indexed argument's value (canonical): the word itself, or for dynamic types its hash. */
export function topicOf(kind: Kind, value: FilterValue): Hex {
  switch (kind.kind) {
    case 'address':
      return `0x${'0'.repeat(24)}${(value as string).slice(2).toLowerCase()}`;
    case 'bool':
      return numberToHex(value ? 1 : 0, { size: 32 });
    case 'int':
      return numberToHex(BigInt.asUintN(256, BigInt(value as string)), { size: 32 });
    case 'fixedBytes':
      return `0x${(value as string).slice(2).padEnd(64, '0')}`;
    case 'bytes':
      return keccak256(value as Hex);
    default:
      return keccak256(stringToHex(value as string));
  }
}

/** Which operators fit a kind; indexed dynamic values are only their hash in the log. */
export function opsFor(kind: Kind, indexed: boolean): readonly ConditionOp[] {
  if (indexed && (kind.kind === 'string' || kind.kind === 'bytes')) return [];
  if (kind.kind === 'int') return CONDITION_OPS;
  if (kind.kind === 'bool') return ['eq', 'neq'];
  if (kind.kind === 'other') return [];
  return ['eq', 'neq', 'in'];
}
