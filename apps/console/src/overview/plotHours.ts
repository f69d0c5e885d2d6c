// uPlot (a small canvas chart library) and its stylesheet: a chunk of their own, loaded once the Overview has shown
// its panels (HourlyChart), so that the view's first render neither waits for them nor runs them.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Hour, Series } from './hours.ts';

/** Draws the hours as stacked bars into `element`, as wide as it is; returns what removes the chart. */
export function plotHours<K extends string>(
  element: HTMLElement,
  hours: Hour<K>[],
  series: readonly Series<K>[],
  height: number,
): () => void {
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
      width: element.clientWidth,
      height,
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
}
