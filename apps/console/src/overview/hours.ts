// The shapes the Overview's hourly panels share: the chart (HourlyChart), the uPlot chunk that draws it (plotHours)
// and the table beside it (HourTable) all read them from here, so the lazily loaded chunk imports no component.

/** One stacked series: its key in each hour's counts, its name, and its colour (the CSS swatch uses the same). */
export interface Series<K extends string> {
  key: K;
  label: string;
  colour: string;
}

export type Hour<K extends string> = { hour: string } & Record<K, number>;
