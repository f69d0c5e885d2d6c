import { type AbiEvent, parseAbiItem, toEventSignature } from 'viem';

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
