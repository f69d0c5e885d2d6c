// Counts per hour, stacked by series, drawn by uPlot (plotHours.ts). The canvas is an image with a summary for screen
// readers; the same numbers are in a table beside it (HourTable). The panel's box has the chart's size from the first
// render on; uPlot is loaded and draws into it when the browser is idle, so nothing moves when it does.
import { useEffect, useRef } from 'react';
import type { Hour, Series } from './hours.ts';

/** The chart's height in pixels: app.css gives .chart-plot the same, so the box is this tall before uPlot draws. */
const HEIGHT = 240;

type Plotter = typeof import('./plotHours.ts');
let plotter: Plotter | undefined;

/** Runs `then` when the browser is idle (soon after, without requestIdleCallback); returns what cancels it. */
function whenIdle(then: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(then, { timeout: 2_000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(then, 1);
  return () => clearTimeout(id);
}

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
    let remove: (() => void) | undefined;
    let gone = false;
    const draw = (loaded: Plotter) => {
      if (!gone) remove = loaded.plotHours(element, hours, series, HEIGHT);
    };
    // Once uPlot is loaded, new numbers (the minute's refresh) are drawn at once, in place of the chart they replace.
    if (plotter) draw(plotter);
    const load = async () => {
      const loaded = await import('./plotHours.ts');
      plotter = loaded;
      // Each chart draws in an idle task of its own, not in the one that ran uPlot's module: together they would
      // be one long task on a slow phone.
      cancel = whenIdle(() => draw(loaded));
    };
    let cancel = plotter ? undefined : whenIdle(() => void load().catch(() => {}));
    return () => {
      gone = true;
      cancel?.();
      remove?.();
    };
  }, [hours, series]);
  return (
    <div className="chart" role="img" aria-label={label}>
      <div className="chart-plot" ref={box} />
    </div>
  );
}
