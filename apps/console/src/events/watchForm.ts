// What a subscription watches beyond its first event and contract, as its dialogs hold it: more events and more
// contracts (one per line), filters on indexed parameters (values one per line) and conditions on decoded values.
// The form is turned into the API's fields (watchBody), checked for what the console can tell on its own
// (checkWatchForm), and the API's refusals (`formattedAbiEvents[1]`, `filters.to[0]`, `conditions[2].op`…) are put
// beside the control that holds the refused value (placeWatchErrors). Whether a parameter fits an event, an operator
// a type, or a value its type is the API's to say.
import type { EventNotifierSubscription, RequestBody } from '@mountain/public-api-client';
import { type AbiEvent, parseAbiItem } from 'viem';
import { type ConditionOp, OPS } from './watchSummary.ts';

/** The API's limits: filters on at most 3 parameters, 20 conditions, 20 events in all. */
export const MAX_FILTERS = 3;
export const MAX_CONDITIONS = 20;

export interface FilterRow {
  id: number;
  parameter: string;
  /** One value per line. */
  values: string;
}

export interface ConditionRow {
  id: number;
  field: string;
  op: ConditionOp;
  /** One value; for `in`, values separated by commas. */
  value: string;
}

export interface WatchForm {
  /** More events, one per line. */
  events: string;
  /** More contract addresses, one per line (or separated by spaces or commas). */
  addresses: string;
  filters: FilterRow[];
  conditions: ConditionRow[];
}

export const emptyWatch = (): WatchForm => ({ events: '', addresses: '', filters: [], conditions: [] });

let lastRowId = 0;
/** A key for a new row of filters or conditions (its position changes as rows are removed). */
export const nextRowId = () => ++lastRowId;

/** The form as a subscription holds it now (edit). */
export function watchFormOf(s: EventNotifierSubscription): WatchForm {
  return {
    events: s.formattedAbiEvents.join('\n'),
    addresses: s.addresses.join('\n'),
    filters: Object.entries(s.filters).map(([parameter, values]) => ({
      id: nextRowId(),
      parameter,
      values: values.map(String).join('\n'),
    })),
    conditions: s.conditions.map((c) => ({
      id: nextRowId(),
      field: c.field,
      op: (OPS.some((o) => o.op === c.op) ? c.op : 'eq') as ConditionOp,
      value: Array.isArray(c.value) ? c.value.map(String).join(', ') : String(c.value),
    })),
  };
}

/** A parameter of an event as filters and conditions name it (its name, or its position when one has none). */
export interface EventParameter {
  key: string;
  type: string;
  indexed: boolean;
}

/** The parameters of a human-readable event, as the API keys them in decodedLog; [] when it is not an event. */
export function parametersOf(formattedAbiEvent: string): EventParameter[] {
  let event: AbiEvent;
  try {
    const item = parseAbiItem(formattedAbiEvent.trim());
    if (item.type !== 'event') return [];
    event = item;
  } catch {
    return [];
  }
  const named = event.inputs.length > 0 && event.inputs.every((input) => input.name);
  return event.inputs.map((input, i) => ({
    key: named ? (input.name as string) : String(i),
    type: input.type,
    indexed: input.indexed === true,
  }));
}

/** The non-empty lines of a text, trimmed. */
const linesOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
const addressesOf = (text: string) => text.split(/[\s,]+/).filter((a) => a !== '');
const listOf = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

type WatchBody = Required<Pick<RequestBody<'update-subscription'>, 'formattedAbiEvents' | 'addresses' | 'filters'>> & {
  conditions: { field: string; op: ConditionOp; value: string | string[] }[];
};

/** The API's fields of the form (each given, empty when nothing is asked: on update, that clears it). */
export function watchBody(form: WatchForm): WatchBody {
  return {
    formattedAbiEvents: linesOf(form.events),
    addresses: addressesOf(form.addresses),
    filters: Object.fromEntries(form.filters.map((f) => [f.parameter, linesOf(f.values)])),
    conditions: form.conditions.map((c) => ({
      field: c.field,
      op: c.op,
      value: c.op === 'in' ? listOf(c.value) : c.value.trim(),
    })),
  };
}

/**
 * Where an error shows in the form: `events`, `addresses`, `filters` and `conditions` (the whole list),
 * `filter.<row>.parameter` and `filter.<row>.values`, `condition.<row>.field`, `.op` and `.value`.
 */
export type WatchErrors = Record<string, string>;

/** What the console can tell before sending: a line that is not an event or an address, a row left half filled. */
export function checkWatchForm(form: WatchForm): WatchErrors {
  const problems: WatchErrors = {};
  const events = linesOf(form.events);
  const notEvent = events.findIndex((line) => {
    try {
      return parseAbiItem(line).type !== 'event';
    } catch {
      return true;
    }
  });
  if (notEvent >= 0) problems.events = `“${events[notEvent]}” is not an event signature`;
  if (events.length > 19) problems.events = `${events.length} more events: at most 19 beside the first`;
  const wrong = addressesOf(form.addresses).find((a) => !/^0x[0-9a-fA-F]{40}$/.test(a));
  if (wrong) problems.addresses = `“${wrong}” is not an address (0x followed by 40 hex digits)`;
  const seen = new Set<string>();
  form.filters.forEach((f, i) => {
    if (f.parameter === '') problems[`filter.${i}.parameter`] = 'Choose an indexed parameter';
    else if (seen.has(f.parameter)) problems[`filter.${i}.parameter`] = `${f.parameter} is filtered above already`;
    seen.add(f.parameter);
    if (linesOf(f.values).length === 0) problems[`filter.${i}.values`] = 'At least one value';
  });
  form.conditions.forEach((c, i) => {
    if (c.field === '') problems[`condition.${i}.field`] = 'Choose a parameter';
    if ((c.op === 'in' ? listOf(c.value) : [c.value.trim()]).every((v) => v === ''))
      problems[`condition.${i}.value`] = c.op === 'in' ? 'At least one value' : 'A value';
  });
  return problems;
}

/**
 * The API's field errors of the watch (as fieldErrorsOf gives them, `body.` taken off) placed in the form. A message
 * about one line of a list names the line's value: `“0x12…” is not an address`.
 */
export function placeWatchErrors(apiErrors: Record<string, string>, form: WatchForm): WatchErrors {
  const sent = watchBody(form);
  const placed: WatchErrors = {};
  for (const [field, message] of Object.entries(apiErrors)) {
    const where = placeOne(field, message, form, sent);
    if (!where) continue;
    const [slot, text] = where;
    placed[slot] = placed[slot] ? `${placed[slot]}; ${text}` : text;
  }
  return placed;
}

const quoted = (value: unknown, message: string) => `“${String(value)}” ${message}`;

/** The slot of one API field error of the watch, and its message as the slot shows it; undefined for another field. */
function placeOne(field: string, message: string, form: WatchForm, sent: WatchBody): [string, string] | undefined {
  const event = /^formattedAbiEvents\[(\d+)\]/.exec(field);
  if (event) return ['events', quoted(sent.formattedAbiEvents[Number(event[1])], message)];
  if (field.startsWith('formattedAbiEvents')) return ['events', `The list ${message}`];
  const address = /^addresses\[(\d+)\]/.exec(field);
  if (address) return ['addresses', quoted(sent.addresses[Number(address[1])], message)];
  if (field.startsWith('addresses')) return ['addresses', `The list ${message}`];
  const filter = /^filters\.(.+?)(?:\[(\d+)\])?$/.exec(field);
  if (filter) {
    const key = filter[1] as string;
    const row = form.filters.findIndex((f) => f.parameter === key);
    if (row < 0) return ['filters', `${key} ${message}`];
    if (filter[2] === undefined) return [`filter.${row}.parameter`, `${key} ${message}`];
    return [`filter.${row}.values`, quoted(sent.filters[key]?.[Number(filter[2])], message)];
  }
  if (field.startsWith('filters')) return ['filters', `The filters ${message}`];
  const condition = /^conditions\[(\d+)\](?:\.(field|op|value))?(?:\[(\d+)\])?/.exec(field);
  if (condition) {
    const row = Number(condition[1]);
    const part = condition[2] ?? 'field';
    const value = sent.conditions[row]?.value;
    if (part !== 'value') return [`condition.${row}.${part}`, message];
    if (condition[3] !== undefined && Array.isArray(value)) {
      return [`condition.${row}.value`, quoted(value[Number(condition[3])], message)];
    }
    return [`condition.${row}.value`, typeof value === 'string' && value !== '' ? quoted(value, message) : message];
  }
  if (field.startsWith('conditions')) return ['conditions', `The conditions ${message}`];
  return undefined;
}

/** The API's field names of the watch: the dialogs place their errors, so none shows twice above the form. */
export const WATCH_FIELDS = ['formattedAbiEvents', 'addresses', 'filters', 'conditions'];
