// Counts per hour, stacked by series, drawn by uPlot (a small canvas chart library). The canvas is an image with a
// summary for screen readers; the same numbers are in a table beside it (HourlyPanel).
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One stacked series: its key in each hour's counts, its name, and its colour (the CSS swatch uses the same). */
export interface Series<K extends string> {
  key: K;
  label: string;
  colour: string;
}

export type Hour<K extends string> = { hour: string } & Record<K, number>;

export function HourlyChart<K extends string>({
  hours,
  series,
  label,
}: {
  hours: Hour<K>[];
  series: readonly Series<K>[];
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const x = hours.map((h) => Date.parse(h.hour) / 1000);
    // Stacked: each series is the sum of itself and the ones below it, drawn from the tallest down.
    const cumulative: number[][] = [];
    series.forEach((s, i) => {
      cumulative.push(hours.map((h, j) => (cumulative[i - 1]?.[j] ?? 0) + h[s.key]));
    });
    const order = [...series.keys()].reverse();
    const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
    const plot = new uPlot(
      {
        width: Math.max(320, element.clientWidth - 16),
        height: 240,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, max)] } },
        axes: [
          { stroke: '#a7b4bc', grid: { stroke: '#26323a' }, ticks: { stroke: '#26323a' } },
          { stroke: '#a7b4bc', grid: { stroke: '#26323a' }, ticks: { stroke: '#26323a' } },
        ],
        series: [
          {},
          ...order.map((i) => ({
            label: series[i]?.label ?? '',
            fill: series[i]?.colour ?? '',
            stroke: series[i]?.colour ?? '',
            ...(bars ? { paths: bars } : {}),
            points: { show: false },
          })),
        ],
      },
      [x, ...order.map((i) => cumulative[i] ?? [])],
      element,
    );
    return () => plot.destroy();
  }, [hours, series]);
  return <div className="chart" ref={box} role="img" aria-label={label} />;
}
