import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { messageOf } from '../api/errors.ts';
import { useCanWrite } from '../project/useProject.ts';
import { DataTable } from '../ui/DataTable.tsx';
import { Empty } from '../ui/Empty.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { formatTime } from '../ui/format.ts';
import { Hex } from '../ui/Hex.tsx';
import { Loading } from '../ui/Loading.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { useRecords, useResendFailed, useSubscriptions } from './useSubscriptions.ts';

const recordsRoute = getRouteApi('/_console/events/$subscriptionId');

/** A subscription's records: the decoded events and their delivery, with resend of the failed ones (and force). */
export function RecordsView() {
  const { subscriptionId } = recordsRoute.useParams();
  const [page, setPage] = useState(1);
  const records = useRecords(subscriptionId, page);
  const subscription = useSubscriptions().data?.eventNotifierSubscriptions.find((s) => s.id === subscriptionId);
  const resend = useResendFailed(subscriptionId);
  const canWrite = useCanWrite();
  const [force, setForce] = useState(false);
  const meta = records.data?.meta;
  // Which event of which contract each record is, once there is more than one to tell apart.
  const several = subscription
    ? subscription.formattedAbiEvents.length > 0 || subscription.addresses.length > 0
    : false;
  return (
    <>
      <h1>{subscription ? `Records of ${subscription.subscriptionName}` : 'Records'}</h1>
      {subscription && (
        <ul className="plain mono">
          {[subscription.formattedAbiEvent, ...subscription.formattedAbiEvents].map((event) => (
            <li key={event}>{event}</li>
          ))}
        </ul>
      )}
      {subscription && subscription.addresses.length > 0 && (
        <p className="muted">Of {subscription.addresses.length + 1} contracts.</p>
      )}
      {canWrite && (
        <div className="toolbar">
          <label className="row">
            <input type="checkbox" checked={force} onChange={(event) => setForce(event.target.checked)} />
            Force (even with the webhook disabled or its retries used up)
          </label>
          <button type="button" onClick={() => resend.mutate(force)} disabled={resend.isPending}>
            Resend failed webhooks
          </button>
        </div>
      )}
      {resend.isSuccess && (
        <p className="notice success" aria-live="polite">
          {resend.data.record.requeuedCount} failed record(s) queued again.
        </p>
      )}
      {resend.isError && (
        <div className="notice error" role="alert">
          {messageOf(resend.error)}
        </div>
      )}
      {records.isPending && <Loading what="records" />}
      {records.isError && <ErrorNotice error={records.error} onRetry={() => records.refetch()} />}
      {records.data && records.data.eventNotifierRecords.length === 0 && (
        <Empty>No event found yet. Scanning goes on every scan interval.</Empty>
      )}
      {records.data && records.data.eventNotifierRecords.length > 0 && (
        <DataTable caption="Records" columns={['Block', 'Transaction', 'Event', 'Delivery']}>
          {records.data.eventNotifierRecords.map((r) => (
            <tr key={r.id}>
              <td>
                {r.blockNumber}
                <div className="muted">{formatTime(r.blockTimestamp)}</div>
              </td>
              <td>
                <Hex value={r.transactionHash} what="transaction hash" keep={4} />
                <div className="muted">log {r.logIndex}</div>
              </td>
              <td>
                {several && (
                  <div className="record-source">
                    <strong>{r.eventName}</strong> <span className="muted">of</span>{' '}
                    <Hex value={r.contractAddress} what="contract address" />
                  </div>
                )}
                <pre className="mono">{JSON.stringify(r.decodedLog, null, 2)}</pre>
              </td>
              <td>
                <StatusBadge status={r.status} />
                {r.removed && <div className="field-error">removed by a reorg</div>}
                {r.notificationFailureCount > 0 &&
                  (r.status === 'notified' ? (
                    <div className="muted">
                      delivered after {attempts(r.notificationFailureCount)} that failed (last:{' '}
                      {r.lastNotificationFailureMessage})
                    </div>
                  ) : (
                    <div className="field-error">
                      {attempts(r.notificationFailureCount)} failed: {r.lastNotificationFailureMessage}
                    </div>
                  ))}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {meta && meta.totalPage > 1 && (
        <nav aria-label="Pages" className="row">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <span>
            Page {meta.pageNumber} of {meta.totalPage}
          </span>
          <button type="button" disabled={page >= meta.totalPage} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      )}
    </>
  );
}

const attempts = (count: number) => (count === 1 ? '1 attempt' : `${count} attempts`);
