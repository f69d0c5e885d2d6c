import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { messageOf } from '../api/errors.ts';
import { useCanWrite } from '../project/useProject.ts';
import { ACTIONS, DataTable } from '../ui/DataTable.tsx';
import { Empty } from '../ui/Empty.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { formatTime } from '../ui/format.ts';
import { Loading } from '../ui/Loading.tsx';
import { lazyNamed, loadOnIntent, WhenOpened } from '../ui/WhenOpened.tsx';
import { useEndpoints, useUpdateEndpoint, type WebhookEndpoint } from './useWebhooks.ts';

const CreateEndpointDialog = lazyNamed(() => import('./CreateEndpointDialog.tsx'), 'CreateEndpointDialog');
const DeleteEndpointDialog = lazyNamed(() => import('./DeleteEndpointDialog.tsx'), 'DeleteEndpointDialog');
const ReplayDialog = lazyNamed(() => import('./ReplayDialog.tsx'), 'ReplayDialog');
const RotateSecretDialog = lazyNamed(() => import('./RotateSecretDialog.tsx'), 'RotateSecretDialog');

type Dialog = { kind: 'rotate' | 'replay' | 'delete'; endpoint: WebhookEndpoint } | { kind: 'create' } | null;

/** The project's webhook endpoints: their state, secret and event types; add, switch, rotate, replay, delete. */
export function WebhooksView() {
  const endpoints = useEndpoints();
  const update = useUpdateEndpoint();
  const canWrite = useCanWrite();
  const [dialog, setDialog] = useState<Dialog>(null);
  const list = endpoints.data?.webhookEndpoints;
  const open = (kind: 'rotate' | 'replay' | 'delete', endpoint: WebhookEndpoint) => setDialog({ kind, endpoint });
  const dialogEndpoint = (kind: 'rotate' | 'replay' | 'delete') =>
    dialog && dialog.kind === kind ? dialog.endpoint : null;
  return (
    <>
      <h1>Webhooks</h1>
      <div className="toolbar">
        {canWrite && (
          <button
            type="button"
            className="primary"
            onClick={() => setDialog({ kind: 'create' })}
            {...loadOnIntent(CreateEndpointDialog)}
          >
            Add an endpoint
          </button>
        )}
        <Link to="/webhooks/attempts" search={{}} className="button">
          Attempt log
        </Link>
      </div>
      {endpoints.isPending && <Loading what="endpoints" />}
      {endpoints.isError && <ErrorNotice error={endpoints.error} onRetry={() => endpoints.refetch()} />}
      {update.isError && (
        <div className="notice error" role="alert">
          {messageOf(update.error)}
        </div>
      )}
      {list && list.length === 0 && (
        <Empty>
          No endpoint yet: an endpoint receives the project's transaction and event webhooks, signed, at a URL of yours.
        </Empty>
      )}
      {list && list.length > 0 && (
        <DataTable caption="Webhook endpoints" columns={['Endpoint', 'Event types', 'State', 'Secret', ACTIONS]}>
          {list.map((e) => (
            <tr key={e.id}>
              <td>
                <span className="mono truncate" title={e.url}>
                  {e.url}
                </span>
                {e.description && <div className="muted">{e.description}</div>}
              </td>
              <td>
                <ul className="plain mono">
                  {e.eventTypes.map((t) => (
                    <li key={t}>{t}</li>
                  ))}
                </ul>
              </td>
              <td>
                <span className={`badge ${e.enabled ? 'status-succeeded' : 'status-failed'}`}>
                  {e.enabled ? 'enabled' : 'disabled'}
                </span>
                {e.disabledReason && <div className="field-error">{e.disabledReason}</div>}
                {e.failingSince && <div className="field-error">failing since {formatTime(e.failingSince)}</div>}
              </td>
              <td>
                <span className="mono">{e.secret}</span>
                {e.previousSecretExpiresAt && (
                  <div className="muted">previous one signs until {formatTime(e.previousSecretExpiresAt)}</div>
                )}
              </td>
              <td>
                <div className="actions">
                  <Link to="/webhooks/attempts" search={{ endpointId: e.id }} aria-label={`Attempts of ${e.url}`}>
                    Attempts
                  </Link>
                  {canWrite && (
                    <>
                      <button
                        type="button"
                        disabled={update.isPending}
                        onClick={() => update.mutate({ id: e.id, enabled: !e.enabled })}
                        aria-label={`${e.enabled ? 'Disable' : 'Enable'} ${e.url}`}
                      >
                        {e.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button
                        type="button"
                        onClick={() => open('rotate', e)}
                        {...loadOnIntent(RotateSecretDialog)}
                        aria-label={`Rotate secret of ${e.url}`}
                      >
                        Rotate secret…
                      </button>
                      <button
                        type="button"
                        onClick={() => open('replay', e)}
                        {...loadOnIntent(ReplayDialog)}
                        aria-label={`Replay messages of ${e.url}`}
                      >
                        Replay…
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => open('delete', e)}
                        {...loadOnIntent(DeleteEndpointDialog)}
                        aria-label={`Delete ${e.url}`}
                      >
                        Delete…
                      </button>
                    </>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {canWrite && (
        <>
          <WhenOpened open={dialog?.kind === 'create'}>
            <CreateEndpointDialog isOpen={dialog?.kind === 'create'} onClose={() => setDialog(null)} />
          </WhenOpened>
          <WhenOpened open={dialog?.kind === 'rotate'}>
            <RotateSecretDialog endpoint={dialogEndpoint('rotate')} onClose={() => setDialog(null)} />
          </WhenOpened>
          <WhenOpened open={dialog?.kind === 'replay'}>
            <ReplayDialog endpoint={dialogEndpoint('replay')} onClose={() => setDialog(null)} />
          </WhenOpened>
          <WhenOpened open={dialog?.kind === 'delete'}>
            <DeleteEndpointDialog endpoint={dialogEndpoint('delete')} onClose={() => setDialog(null)} />
          </WhenOpened>
        </>
      )}
    </>
  );
}
