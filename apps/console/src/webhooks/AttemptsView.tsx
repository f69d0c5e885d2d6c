import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useSubscriptions } from '../events/useSubscriptions.ts';
import { useCanWrite } from '../project/useProject.ts';
import { ACTIONS, DataTable } from '../ui/DataTable.tsx';
import { Empty } from '../ui/Empty.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { lazyNamed, WhenOpened } from '../ui/WhenOpened.tsx';
import { AttemptFilters } from './AttemptFilters.tsx';
import { AttemptRow } from './AttemptRow.tsx';
import type { AttemptSearch } from './attemptSearch.ts';
import { ATTEMPTS_PER_PAGE, useAttempts, useEndpoints, type WebhookEndpoint } from './useWebhooks.ts';

const ReplayDialog = lazyNamed(() => import('./ReplayDialog.tsx'), 'ReplayDialog');

const attemptsRoute = getRouteApi('/_console/webhooks/attempts');

/** The attempt log, newest first: every attempt of every webhook of the project, filtered, a page at a time. */
export function AttemptsView() {
  const search = attemptsRoute.useSearch();
  const navigate = useNavigate({ from: '/webhooks/attempts' });
  const attempts = useAttempts({ ...search, limit: ATTEMPTS_PER_PAGE });
  const endpoints = useEndpoints().data?.webhookEndpoints ?? [];
  const subscriptions = useSubscriptions().data?.eventNotifierSubscriptions ?? [];
  const rows = attempts.data?.webhookAttempts;
  const filtered = Object.keys(search).some((k) => k !== 'cursor');
  const show = (next: AttemptSearch) => navigate({ search: next });
  const canWrite = useCanWrite();
  const [replay, setReplay] = useState<{ endpoint: WebhookEndpoint; around: string } | null>(null);
  return (
    <>
      <h1>Attempt log</h1>
      <p>
        <Link to="/webhooks">Back to the endpoints</Link>
      </p>
      <AttemptFilters
        search={search}
        endpoints={endpoints}
        subscriptions={subscriptions}
        onChange={(filters) => show(filters)}
      />
      {attempts.isPending && <Loading what="attempts" />}
      {attempts.isError && <ErrorNotice error={attempts.error} onRetry={() => attempts.refetch()} />}
      {rows && rows.length === 0 && (
        <Empty>{filtered ? 'No attempt matches these filters.' : 'No webhook attempt yet.'}</Empty>
      )}
      {rows && rows.length > 0 && (
        <DataTable
          caption="Webhook attempts, newest first"
          columns={['When', 'Message', 'URL', 'Outcome', 'Duration', 'Answer', ACTIONS]}
        >
          {rows.map((a) => {
            const endpoint = endpoints.find((e) => e.id === a.endpointId);
            return (
              <AttemptRow
                key={a.id}
                attempt={a}
                {...(canWrite && endpoint ? { onReplay: () => setReplay({ endpoint, around: a.attemptedAt }) } : {})}
              />
            );
          })}
        </DataTable>
      )}
      {(search.cursor || attempts.data?.nextCursor) && (
        <nav aria-label="Pages" className="row">
          <button type="button" disabled={!search.cursor} onClick={() => show({ ...search, cursor: undefined })}>
            Newest page
          </button>
          <button
            type="button"
            disabled={!attempts.data?.nextCursor}
            onClick={() => show({ ...search, cursor: attempts.data?.nextCursor ?? undefined })}
          >
            Older attempts
          </button>
        </nav>
      )}
      <WhenOpened open={replay !== null}>
        <ReplayDialog
          key={replay?.around}
          endpoint={replay?.endpoint ?? null}
          {...(replay ? { around: replay.around } : {})}
          onClose={() => setReplay(null)}
        />
      </WhenOpened>
    </>
  );
}
