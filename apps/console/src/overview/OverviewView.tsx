import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { HourlyPanel } from './HourlyPanel.tsx';
import { useStatistics } from './useStatistics.ts';

/** The colours are the swatches' of app.css. */
const TRANSACTION_OUTCOMES = [
  { key: 'succeeded', label: 'Succeeded', colour: '#2dd4bf' },
  { key: 'reverted', label: 'Reverted', colour: '#f87171' },
  { key: 'failed', label: 'Failed', colour: '#fbbf24' },
  { key: 'pending', label: 'Pending', colour: '#93c5fd' },
] as const;

const ATTEMPT_OUTCOMES = [
  { key: 'delivered', label: 'Delivered', colour: '#2dd4bf' },
  { key: 'httpError', label: 'HTTP error', colour: '#f87171' },
  { key: 'timeout', label: 'Timeout', colour: '#fbbf24' },
  { key: 'connectionError', label: 'Connection error', colour: '#c084fc' },
  { key: 'refused', label: 'Refused by policy', colour: '#93c5fd' },
] as const;

/** The last 24 hours of the project: its transactions by final status, its webhook attempts by outcome. */
export function OverviewView() {
  const statistics = useStatistics();
  const data = statistics.data?.statistics;
  return (
    <>
      <h1>Overview</h1>
      {statistics.isPending && <Loading what="statistics" />}
      {statistics.isError && <ErrorNotice error={statistics.error} onRetry={() => statistics.refetch()} />}
      {data && (
        <>
          <HourlyPanel
            id="tx-per-hour"
            title="Transactions per hour, last 24 hours"
            what="transactions"
            hours={data.transactionsPerHour}
            series={TRANSACTION_OUTCOMES}
          />
          <HourlyPanel
            id="attempts-per-hour"
            title="Webhook attempts per hour, last 24 hours"
            what="webhook attempts"
            hours={data.webhookAttemptsPerHour}
            series={ATTEMPT_OUTCOMES}
          />
        </>
      )}
    </>
  );
}
