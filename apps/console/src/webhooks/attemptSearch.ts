import { EVENT_TYPES, type EventType } from './useWebhooks.ts';

/** The outcomes the attempt log is filtered by: each class, or `failed` for every failure class. */
export const OUTCOME_FILTERS = [
  { value: 'delivered', label: 'delivered (2xx)' },
  { value: 'failed', label: 'failed (any failure)' },
  { value: 'http_error', label: 'HTTP error' },
  { value: 'timeout', label: 'timeout' },
  { value: 'connection_error', label: 'connection error' },
  { value: 'refused', label: 'refused by the URL policy' },
] as const;

export type OutcomeFilter = (typeof OUTCOME_FILTERS)[number]['value'];

/** The attempt log's address: its filters and the page (a cursor), so a filtered view can be linked and reloaded. */
export interface AttemptSearch {
  endpointId?: string;
  subscriptionId?: string;
  eventType?: EventType;
  outcome?: OutcomeFilter;
  /** RFC 3339 instants, as the API takes them. */
  since?: string;
  until?: string;
  cursor?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const text = (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : undefined;

/** Keeps what is well-formed of an address's search; anything else is dropped rather than sent to the API. */
export function validateAttemptSearch(search: Record<string, unknown>): AttemptSearch {
  const picked: AttemptSearch = {};
  const endpointId = text(search.endpointId);
  if (endpointId && UUID.test(endpointId)) picked.endpointId = endpointId;
  const subscriptionId = text(search.subscriptionId);
  if (subscriptionId && UUID.test(subscriptionId)) picked.subscriptionId = subscriptionId;
  if (EVENT_TYPES.includes(search.eventType as EventType)) picked.eventType = search.eventType as EventType;
  if (OUTCOME_FILTERS.some((o) => o.value === search.outcome)) picked.outcome = search.outcome as OutcomeFilter;
  for (const key of ['since', 'until'] as const) {
    const value = text(search[key]);
    if (value && !Number.isNaN(Date.parse(value))) picked[key] = new Date(value).toISOString();
  }
  const cursor = text(search.cursor);
  if (cursor) picked.cursor = cursor;
  return picked;
}
