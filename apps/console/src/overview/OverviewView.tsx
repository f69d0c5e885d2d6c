import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { HourlyChart, OUTCOMES } from './HourlyChart.tsx';
import { useStatistics } from './useStatistics.ts';

/**
 * The last 24 hours of the project. Each panel is one section: the webhook attempts panel joins this list when the
 * API has project webhooks.
 */
export function OverviewView() {
  const statistics = useStatistics();
  const hours = statistics.data?.statistics.transactionsPerHour;
  const total = (hours ?? []).reduce((sum, h) => sum + h.succeeded + h.reverted + h.failed + h.pending, 0);
  return (
    <>
      <h1>Overview</h1>
      <section aria-labelledby="tx-per-hour">
        <h2 id="tx-per-hour">Transactions per hour, last 24 hours</h2>
        {statistics.isPending && <Loading what="statistics" />}
        {statistics.isError && <ErrorNotice error={statistics.error} onRetry={() => statistics.refetch()} />}
        {hours && (
          <>
            <HourlyChart
              hours={hours}
              label={`Bar chart: ${total} transactions in the last 24 hours, by hour and final status`}
            />
            <p className="legend">
              {OUTCOMES.map((o) => (
                <span key={o.key}>
                  <span className={`swatch ${o.key}`} aria-hidden="true" />
                  {o.label}: {hours.reduce((sum, h) => sum + h[o.key], 0)}
                </span>
              ))}
            </p>
            <details>
              <summary>The numbers, hour by hour</summary>
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Hour</th>
                      {OUTCOMES.map((o) => (
                        <th scope="col" key={o.key}>
                          {o.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {hours.map((h) => (
                      <tr key={h.hour}>
                        <td>
                          {new Date(h.hour).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })}
                        </td>
                        {OUTCOMES.map((o) => (
                          <td key={o.key}>{h[o.key]}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </>
        )}
      </section>
    </>
  );
}
