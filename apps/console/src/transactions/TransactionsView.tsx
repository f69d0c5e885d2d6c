import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useFunctionNames } from '../contracts/useFunctionNames.ts';
import { networkName } from '../networks/networks.ts';
import { DataTable } from '../ui/DataTable.tsx';
import { Empty } from '../ui/Empty.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { formatArgs, formatTime, shortHex } from '../ui/format.ts';
import { Hex } from '../ui/Hex.tsx';
import { Loading } from '../ui/Loading.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { isStatusFilter, STATUS_FILTERS } from './statuses.ts';
import { useTransactions } from './useTransactions.ts';

const transactionsRoute = getRouteApi('/_console/transactions');

export function TransactionsView() {
  const { status, page } = transactionsRoute.useSearch();
  const navigate = useNavigate({ from: '/transactions' });
  const transactions = useTransactions(status, page);
  const functions = useFunctionNames();
  const meta = transactions.data?.meta;
  const go = (next: { status?: string; page?: number }) => {
    const chosen = next.status === undefined ? status : next.status;
    return navigate({ search: { ...(isStatusFilter(chosen) ? { status: chosen } : {}), page: next.page ?? 1 } });
  };
  return (
    <>
      <h1>Transactions</h1>
      <div className="toolbar">
        <div className="field">
          <label htmlFor="status-filter">Status</label>
          <select
            id="status-filter"
            value={status ?? ''}
            onChange={(event) => go({ status: event.target.value, page: 1 })}
          >
            <option value="">All statuses</option>
            {STATUS_FILTERS.map((s) => (
              <option key={s} value={s}>
                {s === 'failed' ? 'failed (any failure)' : s}
              </option>
            ))}
          </select>
        </div>
        {transactions.isFetching && !transactions.isPending && (
          <span className="muted" aria-live="polite">
            Refreshing…
          </span>
        )}
      </div>
      {transactions.isPending && <Loading what="transactions" />}
      {transactions.isError && <ErrorNotice error={transactions.error} onRetry={() => transactions.refetch()} />}
      {transactions.data && transactions.data.data.transactions.length === 0 && (
        <Empty>
          {status ? `No ${status} transaction.` : 'No transaction yet: execute an activated function of a contract.'}
        </Empty>
      )}
      {transactions.data && transactions.data.data.transactions.length > 0 && (
        <DataTable
          caption="Transactions, newest first"
          columns={['Transaction', 'Function', 'Arguments', 'Status', 'Network', 'Hash', 'Created']}
        >
          {transactions.data.data.transactions.map((t) => {
            const fn = functions.get(t.contractActivatedFunctionId);
            return (
              <tr key={t.id}>
                <td>
                  <Link to="/transactions/$transactionId" params={{ transactionId: t.id }} className="mono">
                    {shortHex(t.id, 4)}
                  </Link>
                </td>
                <td>
                  <span className="mono" title={fn?.formattedAbiFunction}>
                    {fn?.name ?? `function ${t.contractActivatedFunctionId}`}
                  </span>
                  {fn && (
                    <div className="muted mono" title={fn.address}>
                      {shortHex(fn.address, 4)}
                    </div>
                  )}
                </td>
                <td className="mono" title={t.functionArgs.join(', ')}>
                  {formatArgs(t.functionArgs)}
                </td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td>{networkName(t.networkId)}</td>
                <td>{t.transactionHash ? <Hex value={t.transactionHash} what="transaction hash" keep={4} /> : '—'}</td>
                <td>{formatTime(t.createdAt)}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {meta && meta.totalPage > 1 && (
        <nav aria-label="Pages" className="row" style={{ marginTop: '1rem' }}>
          <button type="button" disabled={page <= 1} onClick={() => go({ page: page - 1 })}>
            Previous page
          </button>
          <span>
            Page {meta.pageNumber} of {meta.totalPage} ({meta.totalItems} transactions)
          </span>
          <button type="button" disabled={page >= meta.totalPage} onClick={() => go({ page: page + 1 })}>
            Next page
          </button>
        </nav>
      )}
    </>
  );
}
