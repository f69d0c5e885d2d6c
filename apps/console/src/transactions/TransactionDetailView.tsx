import { getRouteApi, Link } from '@tanstack/react-router';
import { NETWORKS, networkName } from '../networks/networks.ts';
import { useCanWrite } from '../project/useProject.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { formatTime } from '../ui/format.ts';
import { Loading } from '../ui/Loading.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatWei } from '../ui/wei.ts';
import { CancelControl } from './CancelControl.tsx';
import { SpeedUpControl } from './SpeedUpControl.tsx';
import { Timeline } from './Timeline.tsx';
import { useTransaction } from './useTransactions.ts';

const transactionRoute = getRouteApi('/_console/transactions/$transactionId');

export function TransactionDetailView() {
  const { transactionId } = transactionRoute.useParams();
  const query = useTransaction(transactionId);
  const canWrite = useCanWrite();
  const t = query.data?.transaction;
  return (
    <>
      <h1>Transaction</h1>
      <p className="mono">{transactionId}</p>
      {query.isPending && <Loading what="the transaction" />}
      {query.isError && <ErrorNotice error={query.error} onRetry={() => query.refetch()} />}
      {t && (
        <div className="grid-2">
          <section className="card" aria-labelledby="tx-facts">
            <h2 id="tx-facts">
              Status <StatusBadge status={t.status} />
            </h2>
            <dl className="facts">
              <dt>Network</dt>
              <dd>{networkName(t.networkId)}</dd>
              <dt>Function id</dt>
              <dd>{t.contractActivatedFunctionId}</dd>
              <dt>Arguments</dt>
              <dd className="mono">{JSON.stringify(t.functionArgs)}</dd>
              <dt>Value</dt>
              <dd>{t.value === '0' ? 'none' : formatWei(t.value, NETWORKS[t.networkId]?.coin)}</dd>
              {t.afterTransactionId && (
                <>
                  <dt>Order</dt>
                  <dd>
                    Waits for{' '}
                    <Link
                      to="/transactions/$transactionId"
                      params={{ transactionId: t.afterTransactionId }}
                      className="mono"
                    >
                      {t.afterTransactionId}
                    </Link>{' '}
                    to succeed before it is sent
                  </dd>
                </>
              )}
              {t.expiresAt && (
                <>
                  <dt>Deadline</dt>
                  <dd>{formatTime(t.expiresAt)}: cancelled if not mined by then</dd>
                </>
              )}
              <dt>Idempotency key</dt>
              <dd className="mono">{t.idempotencyKey}</dd>
              <dt>Nonce</dt>
              <dd>{t.nonce ?? '—'}</dd>
              <dt>Gas price</dt>
              <dd>{t.gasPrice ? `${t.gasPrice} wei` : '—'}</dd>
              <dt>Gas used</dt>
              <dd>{t.gasUsed ?? '—'}</dd>
              <dt>Updated</dt>
              <dd>{formatTime(t.updatedAt)}</dd>
              {t.errorMessage && (
                <>
                  <dt>Error</dt>
                  <dd className="field-error">{t.errorMessage}</dd>
                </>
              )}
            </dl>
          </section>
          <section className="card" aria-labelledby="tx-lifecycle">
            <h2 id="tx-lifecycle">Lifecycle</h2>
            <Timeline transaction={t} reorgs={query.data?.reorgs ?? []} />
          </section>
          {canWrite && <SpeedUpControl key={t.id} transaction={t} />}
          {canWrite && <CancelControl key={`cancel-${t.id}`} transaction={t} />}
        </div>
      )}
    </>
  );
}
