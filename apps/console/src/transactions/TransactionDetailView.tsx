import { getRouteApi, Link } from '@tanstack/react-router';
import { parameterNames } from '../contracts/abiText.ts';
import { useFunctionNames } from '../contracts/useFunctionNames.ts';
import { NETWORKS, networkName } from '../networks/networks.ts';
import { useCanWrite } from '../project/useProject.ts';
import { CopyButton } from '../ui/CopyButton.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { formatTime } from '../ui/format.ts';
import { Hex } from '../ui/Hex.tsx';
import { Loading } from '../ui/Loading.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatGwei, formatWei } from '../ui/wei.ts';
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
  const functions = useFunctionNames();
  const fn = t && functions.get(t.contractActivatedFunctionId);
  const names = fn ? parameterNames(fn.formattedAbiFunction, fn.structs) : [];
  return (
    <>
      <h1>Transaction</h1>
      <p>
        <span className="mono">{transactionId}</span> <CopyButton value={transactionId} what="transaction id" />
      </p>
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
              <dt>Function</dt>
              <dd>
                {fn ? (
                  <>
                    <span className="mono">{fn.formattedAbiFunction}</span>
                    <div className="muted">
                      of <Hex value={fn.address} what="contract address" /> (contract {fn.contractId})
                    </div>
                  </>
                ) : (
                  `activated function ${t.contractActivatedFunctionId} (no longer active)`
                )}
              </dd>
              <dt>Arguments</dt>
              <dd>
                {t.functionArgs.length === 0 ? (
                  'none'
                ) : (
                  <ol className="args">
                    {t.functionArgs.map((arg, i) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: arguments are positional
                      <li key={i}>
                        {names[i] && <span className="muted">{names[i]} </span>}
                        <span className="mono">{arg}</span>
                      </li>
                    ))}
                  </ol>
                )}
              </dd>
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
              <dt>Hash</dt>
              <dd>{t.transactionHash ? <Hex value={t.transactionHash} what="transaction hash" keep={10} /> : '—'}</dd>
              {t.blockNumber !== null && (
                <>
                  <dt>Block</dt>
                  <dd>
                    {t.blockNumber}
                    {t.confirmations !== null &&
                      ` (${t.confirmations} confirmations${t.finalized ? ', finalized' : ''})`}
                  </dd>
                </>
              )}
              <dt>Nonce</dt>
              <dd>{t.nonce ?? '—'}</dd>
              <dt>Gas price</dt>
              <dd>{t.gasPrice ? formatGwei(t.gasPrice) : '—'}</dd>
              <dt>Gas used</dt>
              <dd>
                {t.gasUsed
                  ? `${Number(t.gasUsed).toLocaleString('en-US')} of ${Number(t.gasLimit ?? 0).toLocaleString('en-US')}`
                  : '—'}
              </dd>
              <dt>Webhooks</dt>
              <dd>
                <Link to="/webhooks/attempts" search={{ since: t.createdAt }}>
                  Attempts since it was accepted
                </Link>
              </dd>
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
