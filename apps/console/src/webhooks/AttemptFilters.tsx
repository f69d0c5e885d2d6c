import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { type AttemptSearch, OUTCOME_FILTERS, type OutcomeFilter } from './attemptSearch.ts';
import { fromLocalInput, toLocalInput } from './localTime.ts';
import { EVENT_TYPES, type EventType, type WebhookEndpoint } from './useWebhooks.ts';

/** The attempt log's filters; each change shows the newest page of what it matches. */
export function AttemptFilters({
  search,
  endpoints,
  subscriptions,
  onChange,
}: {
  search: AttemptSearch;
  endpoints: WebhookEndpoint[];
  subscriptions: EventNotifierSubscription[];
  onChange: (search: AttemptSearch) => void;
}) {
  const set = (patch: Partial<AttemptSearch>) => {
    const next: AttemptSearch = { ...search, ...patch };
    delete next.cursor;
    for (const key of Object.keys(next) as (keyof AttemptSearch)[]) if (!next[key]) delete next[key];
    onChange(next);
  };
  // One webhook at a time: an endpoint, or a subscription's own webhook.
  const webhook = search.endpointId
    ? `e:${search.endpointId}`
    : search.subscriptionId
      ? `s:${search.subscriptionId}`
      : '';
  return (
    <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <div className="field">
        <label htmlFor="filter-webhook">Webhook</label>
        <select
          id="filter-webhook"
          value={webhook}
          onChange={(e) => {
            const [kind, id] = e.target.value.split(':');
            set({ endpointId: kind === 'e' ? id : undefined, subscriptionId: kind === 's' ? id : undefined });
          }}
        >
          <option value="">Every webhook</option>
          {endpoints.map((e) => (
            <option key={e.id} value={`e:${e.id}`}>
              Endpoint {e.url}
            </option>
          ))}
          {subscriptions.map((s) => (
            <option key={s.id} value={`s:${s.id}`}>
              Subscription {s.subscriptionName}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-type">Event type</label>
        <select
          id="filter-type"
          value={search.eventType ?? ''}
          onChange={(e) => set({ eventType: (e.target.value || undefined) as EventType | undefined })}
        >
          <option value="">Every type</option>
          {EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-outcome">Outcome</label>
        <select
          id="filter-outcome"
          value={search.outcome ?? ''}
          onChange={(e) => set({ outcome: (e.target.value || undefined) as OutcomeFilter | undefined })}
        >
          <option value="">Every outcome</option>
          {OUTCOME_FILTERS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-since">From (your time)</label>
        <input
          id="filter-since"
          type="datetime-local"
          value={search.since ? toLocalInput(new Date(search.since)) : ''}
          onChange={(e) => set({ since: fromLocalInput(e.target.value) })}
        />
      </div>
      <div className="field">
        <label htmlFor="filter-until">Until (your time)</label>
        <input
          id="filter-until"
          type="datetime-local"
          value={search.until ? toLocalInput(new Date(search.until)) : ''}
          onChange={(e) => set({ until: fromLocalInput(e.target.value) })}
        />
      </div>
    </form>
  );
}
