import { useState } from 'react';
import { formatHour } from '../ui/format.ts';
import type { Hour, Series } from './hours.ts';

/**
 * A chart's numbers hour by hour, as a table behind a disclosure: its rows are made when it is first opened, so the
 * Overview's first render formats no hour (the first formatter of a locale costs 70–80 ms on a slow phone).
 */
export function HourTable<K extends string>({ hours, series }: { hours: Hour<K>[]; series: readonly Series<K>[] }) {
  const [opened, setOpened] = useState(false);
  return (
    <details onToggle={(event) => event.currentTarget.open && setOpened(true)}>
      <summary>The numbers, hour by hour</summary>
      {opened && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Hour</th>
                {series.map((s) => (
                  <th scope="col" key={s.key}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {hours.map((h) => (
                <tr key={h.hour}>
                  <td>{formatHour(h.hour)}</td>
                  {series.map((s) => (
                    <td key={s.key}>{h[s.key]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
