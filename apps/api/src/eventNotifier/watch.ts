import {
  type AbiEvent,
  type AbiParameter,
  type Address,
  type Hex,
  keccak256,
  numberToHex,
  stringToHex,
  toEventSelector,
} from 'viem';
import { checksumAddress } from '#api/chain/checksumAddress.ts';
import { type FieldError, validationError } from '#api/errors/ApiError.ts';
import { AbiEventError, eventSignature, parseAbiEvent } from './abiEvent.ts';

// What a subscription watches: its events (formattedAbiEvent and formattedAbiEvents), its contracts (address and
// addresses), filters on indexed arguments (pushed into eth_getLogs' topics) and conditions on decoded values.
// checkWatch turns a request's fields into the stored form, or a 400 naming every field that is wrong; the scanner
// reads the stored form back (watchOf).

/** Events of one subscription, formattedAbiEvent included. */
export const MAX_EVENTS_PER_SUBSCRIPTION = 20;
/** Values of one subscription's filters and `in` conditions, all counted together. */
export const MAX_FILTER_VALUES = 1_000;
/** Conditions of one subscription. */
export const MAX_CONDITIONS = 20;

export const CONDITION_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];
export type FilterValue = string | number | boolean;
export type Filters = Record<string, FilterValue[]>;
export interface Condition {
  field: string;
  op: ConditionOp;
  value: FilterValue | FilterValue[];
}

/** A subscription's watch as the API takes it (create-subscription, update-subscription). */
export interface WatchInput {
  address: string;
  formattedAbiEvent: string;
  addresses?: readonly string[] | undefined;
  formattedAbiEvents?: readonly string[] | undefined;
  filters?: Filters | undefined;
  conditions?: readonly Condition[] | undefined;
}

/** The stored form: checksummed, distinct addresses (the first apart); values in their canonical form. */
export interface Watch {
  address: Address;
  addresses: Address[];
  formattedAbiEvent: string;
  formattedAbiEvents: string[];
  filters: Filters;
  conditions: Condition[];
}

/** What a parameter's values are, for filters and conditions. */
type Kind =
  | { kind: 'address' }
  | { kind: 'bool' }
  | { kind: 'int'; signed: boolean; bits: number }
  | { kind: 'fixedBytes'; size: number }
  | { kind: 'bytes' }
  | { kind: 'string' }
  | { kind: 'other' };

function kindOf(type: string): Kind {
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

const KIND_WORDS: Record<Kind['kind'], string> = {
  address: 'an address',
  bool: 'a bool',
  int: 'an integer',
  fixedBytes: 'fixed-size bytes',
  bytes: 'bytes',
  string: 'a string',
  other: 'an array or a tuple',
};

/** The key of each argument in decodedLog: its name, or its position when a parameter of the event has none. */
function keysOf(event: AbiEvent): string[] {
  const named = event.inputs.length > 0 && event.inputs.every((input) => input.name);
  return event.inputs.map((input, i) => (named ? (input.name as string) : String(i)));
}

const isIndexed = (input: AbiParameter) => 'indexed' in input && input.indexed === true;

/** A value in its canonical form for a kind, or a message saying why it is not one. */
function canonical(kind: Kind, value: FilterValue): { value: FilterValue } | { problem: string } {
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
function topicOf(kind: Kind, value: FilterValue): Hex {
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
function opsFor(kind: Kind, indexed: boolean): readonly ConditionOp[] {
  if (indexed && (kind.kind === 'string' || kind.kind === 'bytes')) return [];
  if (kind.kind === 'int') return CONDITION_OPS;
  if (kind.kind === 'bool') return ['eq', 'neq'];
  if (kind.kind === 'other') return [];
  return ['eq', 'neq', 'in'];
}

/** The parameter of each event that `key` names, or the first event that lacks it. */
function parameterIn(events: readonly AbiEvent[], key: string) {
  const found: { event: AbiEvent; input: AbiParameter; position: number; indexedPosition: number }[] = [];
  for (const event of events) {
    const keys = keysOf(event);
    const position = keys.indexOf(key);
    if (position < 0) return { missing: event };
    const input = event.inputs[position] as AbiParameter;
    const indexedPosition = event.inputs.filter(isIndexed).indexOf(input);
    found.push({ event, input, position, indexedPosition });
  }
  return { found };
}

const describe = (event: AbiEvent) =>
  `event ${eventSignature(event)} (its parameters: ${keysOf(event).join(', ') || 'none'})`;

/**
 * Checks a watch and gives its stored form, or throws a 400 VALIDATION_FAILED naming each wrong field
 * (`<prefix>.formattedAbiEvents[2]`, `<prefix>.filters.to[0]`, `<prefix>.conditions[1].op`…). Filters and
 * conditions apply to every event of the subscription: a parameter they name must be in each, of the same kind
 * (and for a filter, indexed at the same position).
 */
export function checkWatch(
  input: WatchInput,
  limits: { maxAddresses: number } = { maxAddresses: 1_000 },
  prefix = 'body',
): Watch {
  const problems: FieldError[] = [];
  const events: AbiEvent[] = [];
  const formatted = [input.formattedAbiEvent, ...(input.formattedAbiEvents ?? [])].map((text) => text.trim());
  const seen = new Map<string, number>();
  formatted.forEach((text, i) => {
    const field = i === 0 ? `${prefix}.formattedAbiEvent` : `${prefix}.formattedAbiEvents[${i - 1}]`;
    try {
      const event = parseAbiEvent(text);
      // Two events with one selector and one layout could not be told apart in a log.
      const key = `${toEventSelector(event)}/${event.inputs.filter(isIndexed).length}`;
      const before = seen.get(key);
      if (before !== undefined) {
        const other = before === 0 ? 'formattedAbiEvent' : `formattedAbiEvents[${before - 1}]`;
        problems.push({ field, message: `is the same event as ${other} (${eventSignature(event)})` });
        return;
      }
      seen.set(key, i);
      events.push(event);
    } catch (error) {
      if (!(error instanceof AbiEventError)) throw error;
      problems.push({ field, message: error.message });
    }
  });
  if (formatted.length > MAX_EVENTS_PER_SUBSCRIPTION) {
    problems.push({
      field: `${prefix}.formattedAbiEvents`,
      message: `holds ${formatted.length - 1} events: at most ${MAX_EVENTS_PER_SUBSCRIPTION} in all, formattedAbiEvent included`,
    });
  }

  const address = checksumAddress(input.address.slice(2));
  const addresses = [...new Set((input.addresses ?? []).map((a) => checksumAddress(a.slice(2))))].filter(
    (a) => a !== address,
  );
  if (addresses.length + 1 > limits.maxAddresses) {
    problems.push({
      field: `${prefix}.addresses`,
      message: `holds ${addresses.length + 1} distinct addresses with address: at most ${limits.maxAddresses} (MAX_ADDRESSES_PER_SUBSCRIPTION)`,
    });
  }

  let values = 0;
  const filters: Filters = {};
  // Only when every event parsed: a filter is checked against all of them.
  const complete = events.length === formatted.length;
  for (const [key, list] of Object.entries(input.filters ?? {})) {
    const field = `${prefix}.filters.${key}`;
    values += list.length;
    if (!complete) continue;
    const { found, missing } = parameterIn(events, key);
    if (missing) {
      problems.push({ field, message: `is not a parameter of ${describe(missing)}` });
      continue;
    }
    const first = found[0] as (typeof found)[number];
    const notIndexed = found.find((f) => f.indexedPosition < 0);
    if (notIndexed) {
      problems.push({
        field,
        message: `is not indexed in event ${eventSignature(notIndexed.event)}: only indexed parameters can be filtered (use a condition)`,
      });
      continue;
    }
    const kind = kindOf(first.input.type);
    const other = found.find(
      (f) => f.indexedPosition !== first.indexedPosition || kindOf(f.input.type).kind !== kind.kind,
    );
    if (other) {
      problems.push({
        field,
        message: `is not the same indexed parameter in event ${eventSignature(other.event)} as in ${eventSignature(first.event)} (position or type): watch them in separate subscriptions`,
      });
      continue;
    }
    if (kind.kind === 'other') {
      problems.push({ field, message: 'is an array or a tuple: it cannot be filtered' });
      continue;
    }
    const accepted: FilterValue[] = [];
    list.forEach((value, i) => {
      for (const f of found) {
        const result = canonical(kindOf(f.input.type), value);
        if ('problem' in result) {
          problems.push({ field: `${field}[${i}]`, message: result.problem });
          return;
        }
        if (f === first) accepted.push(result.value);
      }
    });
    filters[key] = [...new Set(accepted)];
  }

  const conditions: Condition[] = [];
  (input.conditions ?? []).forEach((condition, i) => {
    const field = `${prefix}.conditions[${i}]`;
    if (Array.isArray(condition.value)) values += condition.value.length;
    if (!complete) return;
    const { found, missing } = parameterIn(events, condition.field);
    if (missing) {
      problems.push({
        field: `${field}.field`,
        message: `"${condition.field}" is not a parameter of ${describe(missing)}`,
      });
      return;
    }
    const first = found[0] as (typeof found)[number];
    const kind = kindOf(first.input.type);
    const other = found.find((f) => kindOf(f.input.type).kind !== kind.kind);
    if (other) {
      problems.push({
        field: `${field}.field`,
        message: `"${condition.field}" is ${KIND_WORDS[kindOf(other.input.type).kind]} in event ${eventSignature(other.event)} but ${KIND_WORDS[kind.kind]} in ${eventSignature(first.event)}`,
      });
      return;
    }
    const ops = found.reduce<readonly ConditionOp[]>(
      (fit, f) => fit.filter((op) => opsFor(kindOf(f.input.type), f.indexedPosition >= 0).includes(op)),
      CONDITION_OPS,
    );
    if (!ops.includes(condition.op)) {
      const why =
        ops.length === 0
          ? kind.kind === 'string' || kind.kind === 'bytes'
            ? `"${condition.field}" is indexed: the log holds only its hash (filter it with filters instead)`
            : `${KIND_WORDS[kind.kind]} cannot be compared`
          : `"${condition.op}" does not apply to ${KIND_WORDS[kind.kind]} (use ${ops.join(', ')})`;
      problems.push({ field: `${field}.op`, message: why });
      return;
    }
    const list = condition.op === 'in';
    if (list !== Array.isArray(condition.value)) {
      problems.push({
        field: `${field}.value`,
        message: list ? 'must be a list of values for "in"' : `must be one value for "${condition.op}"`,
      });
      return;
    }
    const given = Array.isArray(condition.value) ? condition.value : [condition.value];
    const accepted: FilterValue[] = [];
    given.forEach((value, k) => {
      for (const f of found) {
        const result = canonical(kindOf(f.input.type), value);
        if ('problem' in result) {
          problems.push({ field: list ? `${field}.value[${k}]` : `${field}.value`, message: result.problem });
          return;
        }
        if (f === first) accepted.push(result.value);
      }
    });
    conditions.push({
      field: condition.field,
      op: condition.op,
      value: list ? accepted : (accepted[0] as FilterValue),
    });
  });
  if (values > MAX_FILTER_VALUES) {
    problems.push({
      field: `${prefix}.filters`,
      message: `and the "in" conditions hold ${values} values: at most ${MAX_FILTER_VALUES} in all`,
    });
  }
  if (problems.length > 0) throw validationError(problems);
  return {
    address,
    addresses,
    formattedAbiEvent: formatted[0] as string,
    formattedAbiEvents: formatted.slice(1),
    filters,
    conditions,
  };
}

/** A subscription's watch as stored (the columns of its row, rows.ts). */
export function watchOf(row: {
  address: string;
  addresses: string[];
  formatted_abi_event: string;
  formatted_abi_events: string[];
  filters: Filters;
  conditions: Condition[];
}): Watch {
  return {
    address: row.address as Address,
    addresses: (row.addresses ?? []) as Address[],
    formattedAbiEvent: row.formatted_abi_event,
    formattedAbiEvents: row.formatted_abi_events ?? [],
    filters: row.filters ?? {},
    conditions: row.conditions ?? [],
  };
}

/** The watch's events, formattedAbiEvent first. */
export function eventsOf(watch: Pick<Watch, 'formattedAbiEvent' | 'formattedAbiEvents'>): AbiEvent[] {
  return [watch.formattedAbiEvent, ...watch.formattedAbiEvents].map(parseAbiEvent);
}

/**
 * The eth_getLogs topics of a watch: the events' selectors (OR), then per indexed position the filter's values
 * (OR within a parameter, AND across them); trailing positions without a filter are left out.
 */
export function topicsOf(watch: Watch, events: readonly AbiEvent[]): (Hex | Hex[] | null)[] {
  const selectors = [...new Set(events.map((event) => toEventSelector(event)))];
  const topics: (Hex | Hex[] | null)[] = [selectors.length === 1 ? (selectors[0] as Hex) : selectors];
  const first = events[0] as AbiEvent;
  for (const [key, values] of Object.entries(watch.filters)) {
    const input = first.inputs[keysOf(first).indexOf(key)] as AbiParameter;
    const position = first.inputs.filter(isIndexed).indexOf(input) + 1;
    while (topics.length <= position) topics.push(null);
    const kind = kindOf(input.type);
    topics[position] = values.map((value) => topicOf(kind, value));
  }
  return topics;
}

/**
 * True when a log's topics pass the filters (what a node that ignored part of the query would let through); the
 * first topic, the event's selector, is the decoder's to check.
 */
export function topicMatcher(topics: readonly (Hex | Hex[] | null)[]): (logTopics: readonly Hex[]) => boolean {
  const sets = topics.map((t) =>
    t === null ? undefined : new Set((Array.isArray(t) ? t : [t]).map((x) => x.toLowerCase())),
  );
  // Nodes answer lower-case hex: a topic is lowered only when it is not found as it came.
  return (logTopics) => {
    for (let i = 1; i < sets.length; i++) {
      const set = sets[i];
      const topic = logTopics[i];
      if (set && (topic === undefined || (!set.has(topic) && !set.has(topic.toLowerCase() as Hex)))) return false;
    }
    return true;
  };
}

/** The conditions as one test of a log's decoded arguments (every condition must hold); undefined for none. */
export function conditionMatcher(
  conditions: readonly Condition[],
  event: AbiEvent,
): ((args: Record<string, unknown>) => boolean) | undefined {
  if (conditions.length === 0) return undefined;
  const keys = keysOf(event);
  const tests = conditions.map(({ field, op, value }) => {
    const kind = kindOf((event.inputs[keys.indexOf(field)] as AbiParameter).type).kind;
    // Integers arrive as decimal strings and are compared as integers; addresses (checksummed) and bytes in lower
    // case; strings and bools as they are.
    const norm = (v: unknown): unknown =>
      typeof v !== 'string' ? v : kind === 'int' ? BigInt(v) : kind === 'string' ? v : v.toLowerCase();
    const wanted = (Array.isArray(value) ? value : [value]).map(norm);
    const one = wanted[0];
    // A Set compares bigints and strings by value: `in` costs one look-up per log, whatever its length.
    const among = new Set(wanted);
    return (args: Record<string, unknown>): boolean => {
      const given = args[field];
      if (given === undefined) return false;
      const actual = norm(given);
      switch (op) {
        case 'eq':
          return actual === one;
        case 'neq':
          return actual !== one;
        case 'in':
          return among.has(actual);
        case 'gt':
          return (actual as bigint) > (one as bigint);
        case 'gte':
          return (actual as bigint) >= (one as bigint);
        case 'lt':
          return (actual as bigint) < (one as bigint);
        default:
          return (actual as bigint) <= (one as bigint);
      }
    };
  });
  return (args) => tests.every((test) => test(args));
}
