import { type AbiEvent, decodeAbiParameters, type Hex, toEventSelector, toEventSignature } from 'viem';
import { checksumAddress } from '#api/chain/checksumAddress.ts';
import { AbiEntryError, parseHumanAbi } from '#api/contracts/abiParse.ts';
import { AbiLimitError } from '#api/contracts/abiShape.ts';
import { BaseError } from '#api/errors/BaseError.ts';

/** Raised when `formattedAbiEvent` is not one human-readable event; the message says what is wrong. */
export class AbiEventError extends BaseError {
  override name = 'AbiEventError';
  readonly code = 'VALIDATION_FAILED';
}

const EXAMPLE = 'e.g. "event Transfer(address indexed from, address indexed to, uint256 value)"';

/**
 * Parses `event Name(type indexed name, …)` with viem, within the limits of contract ABIs (length, nesting,
 * components); anything else throws an AbiEventError.
 */
export function parseAbiEvent(formatted: string): AbiEvent {
  const text = formatted.trim();
  let item: ReturnType<typeof parseHumanAbi>['items'][number] | undefined;
  try {
    item = parseHumanAbi([text]).items[0];
  } catch (error) {
    if (error instanceof AbiLimitError) throw new AbiEventError(error.message, { cause: error });
    if (!(error instanceof AbiEntryError)) throw error;
    throw new AbiEventError(
      `is not a valid human-readable ABI item (${error.message.split('\n')[0]}); expected ${EXAMPLE}`,
      { cause: error },
    );
  }
  if (item?.type !== 'event') {
    throw new AbiEventError(`must be an event (got a ${item?.type ?? 'struct'}); expected ${EXAMPLE}`);
  }
  if (item.anonymous) throw new AbiEventError('must not be anonymous: anonymous events cannot be filtered by topic');
  return item;
}

/** `Transfer(address,address,uint256)`: the canonical signature whose hash is the event's first topic. */
export function eventSignature(event: AbiEvent): string {
  return toEventSignature(event).replace(/^event /, '');
}

/**
 * The decoded arguments as JSON: integers become decimal strings so no precision is lost; arguments without a
 * name are keyed by their position.
 */
export function toDecodedLog(args: unknown): Record<string, unknown> {
  if (Array.isArray(args)) return Object.fromEntries(args.map((value, i) => [String(i), toJson(value)]));
  return (toJson(args ?? {}) as Record<string, unknown>) ?? {};
}

function toJson(value: unknown): unknown {
  // Every integer type is a decimal string, whatever its size (viem gives numbers up to 48 bits, bigints above).
  if (typeof value === 'bigint' || typeof value === 'number') return value.toString();
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  }
  return value;
}

/** The decoded arguments of one log as they are stored (`decodedLog`): see toDecodedLog. */
export type DecodedArgs = Record<string, unknown>;

/** Decodes one 32-byte ABI word (64 hex digits) of a static type; `INVALID` when the word is not a valid value. */
type WordDecoder = (word: string) => unknown;
const INVALID = Symbol('invalid');

/**
 * Word decoders for the static types most events carry (address, bool, uintN, intN), giving what toDecodedLog
 * makes of viem's results: checksummed addresses from the low 20 bytes, integers as decimal strings (a word of a
 * type up to 48 bits that viem would refuse, past 2^53, is INVALID), booleans only from 0 or 1.
 * Other types return undefined and go through viem's decoder.
 */
function wordDecoder(type: string): WordDecoder | undefined {
  if (type === 'address') return (word) => checksumAddress(word.slice(24));
  if (type === 'bool') {
    return (word) => {
      const value = BigInt(`0x${word}`);
      return value === 0n ? false : value === 1n ? true : INVALID;
    };
  }
  const integer = /^(u?)int(\d*)$/.exec(type);
  if (!integer) return undefined;
  const bits = Number(integer[2] || 256);
  const signed = integer[1] === '';
  return (word) => {
    const raw = BigInt(`0x${word}`);
    const value = signed ? BigInt.asIntN(256, raw) : raw;
    // viem refuses a small type's word whose value is past 2^53 (the log is then skipped in strict mode).
    if (bits <= 48 && !Number.isSafeInteger(Number(value))) return INVALID;
    return value.toString();
  };
}

/**
 * A decoder for one event, built once per scan, giving a log's arguments as stored (what toDecodedLog makes of
 * viem's decodeEventLog): the selector and parameter lists are computed here instead of for every log (viem
 * re-derives them per call, which dominates a large backfill), and the stored form is built at once. Static words
 * of common types are decoded directly (see wordDecoder); anything else with viem's ABI decoder. Indexed parameters
 * of dynamic type (string, bytes, arrays, tuples) are their topic hash, as in viem. Returns undefined for a log that
 * does not match the event's layout (viem's `strict` mode).
 */
export function createLogDecoder(event: AbiEvent): (topics: readonly Hex[], data: Hex) => DecodedArgs | undefined {
  const selector = toEventSelector(event);
  const indexed = event.inputs.filter((input) => 'indexed' in input && input.indexed);
  const plain = event.inputs.filter((input) => !('indexed' in input && input.indexed));
  const named = event.inputs.length > 0 && event.inputs.every((input) => input.name);
  const dynamic = (type: string) =>
    type === 'string' || type === 'bytes' || type.endsWith(']') || type.startsWith('tuple');
  const topicDecoders = indexed.map((input): WordDecoder => {
    if (dynamic(input.type)) return (word) => `0x${word}`;
    return wordDecoder(input.type) ?? ((word) => toJson(decodeAbiParameters([input], `0x${word}`)[0]));
  });
  // The data part word by word when every parameter in it has a direct decoder.
  const plainDecoders = plain.map((input) => wordDecoder(input.type));
  const direct = plainDecoders.every((d) => d !== undefined) ? (plainDecoders as WordDecoder[]) : undefined;
  const positions = new Map(event.inputs.map((input, i) => [input, i]));
  // Each argument's key: its name, or its position when a parameter has none.
  const keys = event.inputs.map((input, i) => (named ? (input.name as string) : String(i)));
  const indexedAt = indexed.map((input) => positions.get(input) as number);
  const plainAt = plain.map((input) => positions.get(input) as number);

  return (topics, data) => {
    if (topics[0] !== selector || topics.length !== indexed.length + 1) return undefined;
    try {
      const values: unknown[] = new Array(event.inputs.length);
      for (let i = 0; i < indexed.length; i++) {
        const topic = topics[i + 1] as Hex;
        if (topic.length !== 66) return undefined;
        const value = (topicDecoders[i] as WordDecoder)(topic.slice(2));
        if (value === INVALID) return undefined;
        values[indexedAt[i] as number] = value;
      }
      if (direct) {
        if (direct.length > 0 && data.length < 2 + 64 * direct.length) return undefined;
        for (let i = 0; i < direct.length; i++) {
          const value = (direct[i] as WordDecoder)(data.slice(2 + 64 * i, 66 + 64 * i));
          if (value === INVALID) return undefined;
          values[plainAt[i] as number] = value;
        }
      } else {
        const decoded = decodeAbiParameters(plain, data);
        for (let i = 0; i < plain.length; i++) values[plainAt[i] as number] = toJson(decoded[i]);
      }
      // In the event's parameter order, which the stored JSON keeps.
      const args: DecodedArgs = {};
      for (let i = 0; i < keys.length; i++) args[keys[i] as string] = values[i];
      return args;
    } catch {
      return undefined;
    }
  };
}
