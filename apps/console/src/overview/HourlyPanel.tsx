import { HourlyChart } from './HourlyChart.tsx';
import { HourTable } from './HourTable.tsx';
import type { Hour, Series } from './hours.ts';

/** One panel of the Overview: a stacked chart of 24 hours, its legend with totals, and the numbers as a table. */
export function HourlyPanel<K extends string>({
  id,
  title,
  what,
  hours,
  series,
}: {
  id: string;
  title: string;
  /** What is counted, for the chart's summary: "transactions", "webhook attempts". */
  what: string;
  hours: Hour<K>[];
  series: readonly Series<K>[];
}) {
  const total = (key: K) => hours.reduce((sum, h) => sum + h[key], 0);
  const all = series.reduce((sum, s) => sum + total(s.key), 0);
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <HourlyChart
        hours={hours}
        series={series}
        label={`Bar chart: ${all} ${what} in the last 24 hours, by hour and ${series.map((s) => s.label.toLowerCase()).join(', ')}`}
      />
      <p className="legend">
        {series.map((s) => (
          <span key={s.key}>
            <span className={`swatch ${s.key}`} aria-hidden="true" />
            {s.label}: {total(s.key)}
          </span>
        ))}
      </p>
      <HourTable hours={hours} series={series} />
    </section>
  );
}
