// Transactions per hour, stacked by final status, drawn by uPlot (a small canvas chart library). The canvas is an
// image with a summary for screen readers; the same numbers are in a table below it.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface HourCounts {
  hour: string;
  succeeded: number;
  reverted: number;
  failed: number;
  pending: number;
}

export const OUTCOMES = [
  { key: 'succeeded', label: 'Succeeded', colour: '#2dd4bf' },
  { key: 'reverted', label: 'Reverted', colour: '#f87171' },
  { key: 'failed', label: 'Failed', colour: '#fbbf24' },
  { key: 'pending', label: 'Pending', colour: '#93c5fd' },
] as const;

export function HourlyChart({ hours, label }: { hours: HourCounts[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const x = hours.map((h) => Date.parse(h.hour) / 1000);
    // Stacked: each series is the sum of itself and the ones below it, drawn from the tallest down.
    const cumulative: number[][] = [];
    OUTCOMES.forEach((outcome, i) => {
      cumulative.push(hours.map((h, j) => (cumulative[i - 1]?.[j] ?? 0) + h[outcome.key]));
    });
    const order = [...OUTCOMES.keys()].reverse();
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
            label: OUTCOMES[i]?.label ?? '',
            fill: OUTCOMES[i]?.colour ?? '',
            stroke: OUTCOMES[i]?.colour ?? '',
            ...(bars ? { paths: bars } : {}),
            points: { show: false },
          })),
        ],
      },
      [x, ...order.map((i) => cumulative[i] ?? [])],
      element,
    );
    return () => plot.destroy();
  }, [hours]);
  return <div className="chart" ref={box} role="img" aria-label={label} />;
}
