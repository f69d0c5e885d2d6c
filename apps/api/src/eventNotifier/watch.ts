import { type AbiEvent, type AbiParameter, type Address, toEventSelector } from 'viem';
import { checksumAddress } from '#api/chain/checksumAddress.ts';
import { type FieldError, validationError } from '#api/errors/ApiError.ts';
import { AbiEventError, eventSignature, parseAbiEvent } from './abiEvent.ts';
import {
  CONDITION_OPS,
  type Condition,
  type ConditionOp,
  canonical,
  type Filters,
  type FilterValue,
  isIndexed,
  KIND_WORDS,
  keysOf,
  kindOf,
  opsFor,
} from './watchValues.ts';

export type { Condition, ConditionOp, Filters, FilterValue } from './watchValues.ts';

// What a subscription watches: its events (formattedAbiEvent and formattedAbiEvents), its contracts (address and
// addresses), filters on indexed arguments (pushed into eth_getLogs' topics) and conditions on decoded values.
// checkWatch turns a request's fields into the stored form, or a 400 naming every field that is wrong; the scanner
// reads the stored form back (watchOf).

/** Events of one subscription, formattedAbiEvent included. */
export const MAX_EVENTS_PER_SUBSCRIPTION = 20;
/** Values of one subscription's filters and `in` conditions, all counted together. */
export const MAX_FILTER_VALUES = 1_000;

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

/**
 * Each value in its canonical form, as the first event's parameter takes it; a value some event's parameter does not
 * take is a problem named `fieldOf(index)` (and left out).
 */
function canonicalValues(
  found: { input: AbiParameter }[],
  values: readonly FilterValue[],
  fieldOf: (index: number) => string,
  problems: FieldError[],
): FilterValue[] {
  const accepted: FilterValue[] = [];
  values.forEach((value, i) => {
    for (const [k, f] of found.entries()) {
      const result = canonical(kindOf(f.input.type), value);
      if ('problem' in result) {
        problems.push({ field: fieldOf(i), message: result.problem });
        return;
      }
      if (k === 0) accepted.push(result.value);
    }
  });
  return accepted;
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
    filters[key] = [...new Set(canonicalValues(found, list, (i) => `${field}[${i}]`, problems))];
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
    const accepted = canonicalValues(found, given, (k) => (list ? `${field}.value[${k}]` : `${field}.value`), problems);
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
