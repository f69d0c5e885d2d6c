// What a subscription watches, in a few words (under its first event in the events list), and the operators of its
// conditions. Apart from the form's module, which parses events: the list loads no ABI parser.
import type { EventNotifierSubscription } from '@mountain/public-api-client';

export type ConditionOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in';

/** The operators, with what a person reads in the select. */
export const OPS: { op: ConditionOp; label: string; symbol: string }[] = [
  { op: 'eq', label: '= equals', symbol: '=' },
  { op: 'neq', label: '≠ differs from', symbol: '≠' },
  { op: 'gt', label: '> more than', symbol: '>' },
  { op: 'gte', label: '≥ at least', symbol: '≥' },
  { op: 'lt', label: '< less than', symbol: '<' },
  { op: 'lte', label: '≤ at most', symbol: '≤' },
  { op: 'in', label: 'in one of (commas)', symbol: 'in' },
];

/** A subscription's watch in a few words, beside its first event: more events, contracts, filters, conditions. */
export function watchSummary(s: EventNotifierSubscription): string[] {
  const parts: string[] = [];
  const more = s.formattedAbiEvents.length;
  if (more > 0) parts.push(`and ${more} more event${more === 1 ? '' : 's'}`);
  if (s.addresses.length > 0) parts.push(`${s.addresses.length + 1} contracts`);
  for (const [key, values] of Object.entries(s.filters)) {
    parts.push(values.length === 1 ? `${key} = ${shorten(String(values[0]))}` : `${key}: ${values.length} values`);
  }
  for (const c of s.conditions) {
    const symbol = OPS.find((o) => o.op === c.op)?.symbol ?? c.op;
    const value = Array.isArray(c.value) ? `${c.value.length} values` : shorten(String(c.value));
    parts.push(`${c.field} ${symbol} ${value}`);
  }
  return parts;
}

/** An address or a long value, recognisable: its start and end. */
const shorten = (value: string) => (value.length > 16 ? `${value.slice(0, 8)}…${value.slice(-4)}` : value);
