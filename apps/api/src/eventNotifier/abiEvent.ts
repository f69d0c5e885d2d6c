import {
  type AbiEvent,
  type AbiParameter,
  decodeAbiParameters,
  type Hex,
  parseAbiItem,
  toEventSelector,
  toEventSignature,
} from 'viem';

/** Raised when `formattedAbiEvent` is not one human-readable event; the message says what is wrong. */
export class AbiEventError extends Error {
  override name = 'AbiEventError';
}

const EXAMPLE = 'e.g. "event Transfer(address indexed from, address indexed to, uint256 value)"';

/** Parses `event Name(type indexed name, …)` with viem; anything else throws an AbiEventError. */
export function parseAbiEvent(formatted: string): AbiEvent {
  const text = formatted.trim();
  let item: ReturnType<typeof parseAbiItem>;
  try {
    item = parseAbiItem(text);
  } catch (error) {
    const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
    throw new AbiEventError(`is not a valid human-readable ABI item (${reason.split('\n')[0]}); expected ${EXAMPLE}`, {
      cause: error,
    });
  }
  if (item.type !== 'event') {
    throw new AbiEventError(`must be an event (got a ${item.type}); expected ${EXAMPLE}`);
  }
  if (item.anonymous) throw new AbiEventError('must not be anonymous: anonymous events cannot be filtered by topic');
  return item;
}

/** `Transfer(address,address,uint256)`: the canonical signature whose hash is the event's first topic. */
export function eventSignature(event: AbiEvent): string {
  return toEventSignature(event).replace(/^event /, '');
}

/**
 * The decoded arguments as JSON: big integers become decimal strings so no precision is lost; arguments without
 * a name are keyed by their position.
 */
export function toDecodedLog(args: unknown): Record<string, unknown> {
  if (Array.isArray(args)) return Object.fromEntries(args.map((value, i) => [String(i), toJson(value)]));
  return (toJson(args ?? {}) as Record<string, unknown>) ?? {};
}

function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  }
  return value;
}

/** The decoded arguments of one log, as viem's decodeEventLog gives them: by name, or by position if unnamed. */
export type LogArgs = Record<string, unknown> | unknown[];

/**
 * A decoder for one event, built once per scan: the selector and parameter lists are computed here instead of for
 * every log (viem's decodeEventLog re-derives them per call, which dominates a large backfill). Values are decoded
 * with viem's ABI decoder; indexed parameters of dynamic type (string, bytes, arrays, tuples) are their topic
 * hash, as in viem. Returns undefined for a log that does not match the event's layout (viem's `strict` mode).
 */
export function createLogDecoder(event: AbiEvent): (topics: readonly Hex[], data: Hex) => LogArgs | undefined {
  const selector = toEventSelector(event);
  const indexed = event.inputs.filter((input) => 'indexed' in input && input.indexed);
  const plain = event.inputs.filter((input) => !('indexed' in input && input.indexed));
  const named = event.inputs.length > 0 && event.inputs.every((input) => input.name);
  const dynamic = (type: string) =>
    type === 'string' || type === 'bytes' || type.endsWith(']') || type.startsWith('tuple');
  return (topics, data) => {
    if (topics[0] !== selector || topics.length !== indexed.length + 1) return undefined;
    try {
      const byInput = new Map<AbiParameter, unknown>();
      indexed.forEach((input, i) => {
        const topic = topics[i + 1] as Hex;
        byInput.set(input, dynamic(input.type) ? topic : decodeAbiParameters([input], topic)[0]);
      });
      const values = plain.length > 0 ? decodeAbiParameters(plain, data) : [];
      plain.forEach((input, i) => {
        byInput.set(input, values[i]);
      });
      const ordered = event.inputs.map((input) => byInput.get(input));
      return named ? Object.fromEntries(event.inputs.map((input, i) => [input.name as string, ordered[i]])) : ordered;
    } catch {
      return undefined;
    }
  };
}
