import type { AbiEvent, AbiParameter, Hex } from 'viem';
import { toEventSelector } from 'viem';
import type { Condition, Watch } from '#api/eventNotifier/watch.ts';
import { isIndexed, keysOf, kindOf, topicOf } from '#api/eventNotifier/watchValues.ts';

// A watch as the scan asks and checks it: the eth_getLogs topics, the same filters checked again on each log, and
// the conditions on its decoded arguments.

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
