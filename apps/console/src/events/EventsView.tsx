import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { messageOf } from '../api/errors.ts';
import { networkName } from '../networks/networks.ts';
import { useCanWrite } from '../project/useProject.ts';
import { ACTIONS, DataTable } from '../ui/DataTable.tsx';
import { Empty } from '../ui/Empty.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { formatTime } from '../ui/format.ts';
import { Loading } from '../ui/Loading.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { lazyNamed, loadOnIntent, WhenOpened } from '../ui/WhenOpened.tsx';
import { useSubscriptions, useUpdateScan, useUpdateWebhook } from './useSubscriptions.ts';
import { watchSummary } from './watchSummary.ts';

const CreateSubscriptionDialog = lazyNamed(() => import('./CreateSubscriptionDialog.tsx'), 'CreateSubscriptionDialog');
const EditWebhookDialog = lazyNamed(() => import('./EditWebhookDialog.tsx'), 'EditWebhookDialog');
const EditSubscriptionDialog = lazyNamed(() => import('./EditSubscriptionDialog.tsx'), 'EditSubscriptionDialog');
const RewindSubscriptionDialog = lazyNamed(() => import('./RewindSubscriptionDialog.tsx'), 'RewindSubscriptionDialog');
const DeleteSubscriptionDialog = lazyNamed(() => import('./DeleteSubscriptionDialog.tsx'), 'DeleteSubscriptionDialog');

export function EventsView() {
  const subscriptions = useSubscriptions();
  const update = useUpdateWebhook();
  const scan = useUpdateScan();
  const canWrite = useCanWrite();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<EventNotifierSubscription | null>(null);
  const [changing, setChanging] = useState<EventNotifierSubscription | null>(null);
  const [rewinding, setRewinding] = useState<EventNotifierSubscription | null>(null);
  const [deleting, setDeleting] = useState<EventNotifierSubscription | null>(null);
  const failed = update.error ?? scan.error;
  const list = subscriptions.data?.eventNotifierSubscriptions;
  return (
    <>
      <h1>Event notifier</h1>
      {canWrite && (
        <div className="toolbar">
          <button
            type="button"
            className="primary"
            onClick={() => setCreating(true)}
            {...loadOnIntent(CreateSubscriptionDialog)}
          >
            Create a subscription
          </button>
        </div>
      )}
      {subscriptions.isPending && <Loading what="subscriptions" />}
      {subscriptions.isError && <ErrorNotice error={subscriptions.error} onRetry={() => subscriptions.refetch()} />}
      {failed && (
        <div className="notice error" role="alert">
          {messageOf(failed)}
        </div>
      )}
      {list && list.length === 0 && (
        <Empty>No subscription yet: one scans a contract's event and sends each to a webhook.</Empty>
      )}
      {list && list.length > 0 && (
        <DataTable caption="Subscriptions" columns={['Name', 'Event', 'Scan', 'Webhook', ACTIONS]}>
          {list.map((s) => (
            <tr key={s.id}>
              <td>
                <Link to="/events/$subscriptionId" params={{ subscriptionId: s.id }}>
                  {s.subscriptionName}
                </Link>
                <div className="muted">{networkName(s.networkId)}</div>
              </td>
              <td>
                <span className="mono signature">{s.formattedAbiEvent}</span>
                {watchSummary(s).length > 0 && (
                  <ul className="watch-summary muted">
                    {watchSummary(s).map((part) => (
                      <li key={part}>{part}</li>
                    ))}
                  </ul>
                )}
              </td>
              <td>
                <StatusBadge status={s.scanStatus} />
                <div className="muted">
                  {s.scanEnabled ? `block ${s.lastScannedBlock ?? '—'}, ${formatTime(s.lastScannedAt)}` : 'stopped'}
                </div>
                {s.lastScanFailureMessage && <div className="field-error">{s.lastScanFailureMessage}</div>}
              </td>
              <td>
                {s.webhookURL ? <span className="mono">{s.webhookURL}</span> : <span className="muted">no URL</span>}
                <div className="muted">{s.webhookEnabled ? 'enabled' : 'disabled'}</div>
              </td>
              <td>
                {canWrite && (
                  <div className="actions">
                    <button
                      type="button"
                      disabled={scan.isPending}
                      onClick={() => scan.mutate({ id: s.id, scanEnabled: !s.scanEnabled })}
                      aria-label={`${s.scanEnabled ? 'Stop scanning' : 'Resume scanning'} for ${s.subscriptionName}`}
                    >
                      {s.scanEnabled ? 'Stop scanning' : 'Resume scanning'}
                    </button>
                    {s.webhookURL && (
                      <button
                        type="button"
                        disabled={update.isPending}
                        onClick={() => update.mutate({ id: s.id, webhookEnabled: !s.webhookEnabled })}
                        aria-label={`${s.webhookEnabled ? 'Disable' : 'Enable'} webhook of ${s.subscriptionName}`}
                      >
                        {s.webhookEnabled ? 'Disable webhook' : 'Enable webhook'}
                      </button>
                    )}
                    <button
                      type="button"
                      onClick={() => setChanging(s)}
                      {...loadOnIntent(EditSubscriptionDialog)}
                      aria-label={`Edit ${s.subscriptionName}`}
                    >
                      Edit…
                    </button>
                    <button
                      type="button"
                      onClick={() => setRewinding(s)}
                      {...loadOnIntent(RewindSubscriptionDialog)}
                      aria-label={`Rewind ${s.subscriptionName}`}
                    >
                      Rewind…
                    </button>
                    <button
                      type="button"
                      onClick={() => setEditing(s)}
                      {...loadOnIntent(EditWebhookDialog)}
                      aria-label={`Edit webhook of ${s.subscriptionName}`}
                    >
                      Edit webhook…
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => setDeleting(s)}
                      {...loadOnIntent(DeleteSubscriptionDialog)}
                      aria-label={`Delete ${s.subscriptionName}`}
                    >
                      Delete…
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {canWrite && (
        <>
          <WhenOpened open={creating}>
            <CreateSubscriptionDialog isOpen={creating} onClose={() => setCreating(false)} />
          </WhenOpened>
          <WhenOpened open={editing !== null}>
            <EditWebhookDialog subscription={editing} onClose={() => setEditing(null)} />
          </WhenOpened>
          <WhenOpened open={changing !== null}>
            <EditSubscriptionDialog subscription={changing} onClose={() => setChanging(null)} />
          </WhenOpened>
          <WhenOpened open={rewinding !== null}>
            <RewindSubscriptionDialog subscription={rewinding} onClose={() => setRewinding(null)} />
          </WhenOpened>
          <WhenOpened open={deleting !== null}>
            <DeleteSubscriptionDialog subscription={deleting} onClose={() => setDeleting(null)} />
          </WhenOpened>
        </>
      )}
    </>
  );
}
