// The operations guide's tables of metrics and alert rules, written by `npm run openapi` from the metric registry
// (instruments.ts) and the example rules (apps/api/monitoring/alerts.yml), so neither is described twice.
import yaml from 'js-yaml';
import { Counter, Gauge, Histogram } from 'prom-client';
import { mdxCell } from '#api/config/variables.ts';
import { registry } from './instruments.ts';

const code = (text: string) => `\`${text.replace(/\s+/g, ' ').trim()}\``;

function typeOf(metric: object): string {
  if (metric instanceof Counter) return 'counter';
  if (metric instanceof Histogram) return 'histogram';
  if (metric instanceof Gauge) return 'gauge';
  return 'summary';
}

/** The platform's own metrics (`mountain_*`), in the registry's order: name, type, labels and help. */
export function platformMetrics(): { name: string; type: string; labels: string[]; help: string }[] {
  return registry
    .getMetricsAsArray()
    .filter((metric) => metric.name.startsWith('mountain_'))
    .map((metric) => {
      const { name, help, labelNames } = metric as unknown as { name: string; help: string; labelNames?: string[] };
      return { name, type: typeOf(metric), labels: [...(labelNames ?? [])], help };
    });
}

/** The metrics table (apps/docs/docs/operations/_generated/_metrics.mdx). */
export function metricsMdx(mark: string): string {
  return [
    mark,
    '',
    '| Metric | Type | Labels | Meaning |',
    '| --- | --- | --- | --- |',
    ...platformMetrics().map(
      (m) => `| ${code(m.name)} | ${m.type} | ${m.labels.map(code).join(', ') || '—'} | ${mdxCell(m.help)} |`,
    ),
    '',
  ].join('\n');
}

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The rules of an alerts file (Prometheus' format), in its order. */
export function alertRules(text: string): AlertRule[] {
  const file = yaml.load(text) as { groups: { rules: AlertRule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

/** The alert rules table (apps/docs/docs/operations/_generated/_alerts.mdx), from alerts.yml's text. */
export function alertsMdx(mark: string, text: string): string {
  return [
    mark,
    '',
    '| Alert | Severity | Fires when | Says | What to look at |',
    '| --- | --- | --- | --- | --- |',
    ...alertRules(text).map((rule) => {
      const when = `${code(rule.expr)}${rule.for && rule.for !== '0m' ? ` for ${rule.for}` : ''}`;
      const says = rule.annotations?.summary ? mdxCell(code(rule.annotations.summary)) : '—';
      const look = mdxCell(rule.annotations?.description ?? '—');
      return `| ${code(rule.alert)} | ${rule.labels?.severity ?? '—'} | ${mdxCell(when)} | ${says} | ${look} |`;
    }),
    '',
  ].join('\n');
}
