import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import yaml from 'js-yaml';
import { REPO_ROOT } from '#api/config/config.ts';
import { registry } from '#api/metrics/instruments.ts';

const dir = path.join(REPO_ROOT, 'apps/api/monitoring');
const dashboard = JSON.parse(readFileSync(path.join(dir, 'grafana-dashboard.json'), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const rules = (
  yaml.load(readFileSync(path.join(dir, 'alerts.yml'), 'utf8')) as {
    groups: {
      rules: {
        alert: string;
        expr: string;
        for: string;
        labels: Record<string, string>;
        annotations: Record<string, string>;
      }[];
    }[];
  }
).groups.flatMap((g) => g.rules);

/** Each platform metric's series names (a histogram's _bucket, _sum, _count) with the labels they carry. */
const series = new Map<string, string[]>();
for (const metric of registry.getMetricsAsArray()) {
  if (!metric.name.startsWith('mountain_')) continue;
  const labels = [...((metric as unknown as { labelNames: string[] }).labelNames ?? [])];
  if (metric.constructor.name === 'Histogram') {
    series.set(`${metric.name}_bucket`, [...labels, 'le']);
    series.set(`${metric.name}_sum`, labels);
    series.set(`${metric.name}_count`, labels);
  } else series.set(metric.name, labels);
}

/** Checks that `expr` names only platform series that exist, with labels they have; returns the series named. */
function checkExpression(expr: string, where: string): string[] {
  const names: string[] = [];
  const available = new Set<string>();
  for (const match of expr.matchAll(/\b(mountain_\w+)(?:\{([^}]*)\})?/g)) {
    const name = match[1] as string;
    const labels = series.get(name);
    assert.ok(labels, `${where}: ${name} is no metric of the platform`);
    names.push(name);
    for (const l of labels) available.add(l);
    for (const [, label] of (match[2] ?? '').matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)) {
      assert.ok(labels.includes(label as string), `${where}: ${name} has no label ${label}`);
    }
  }
  for (const [, list] of expr.matchAll(/\bby \(([^)]*)\)/g)) {
    for (const label of (list as string).split(',').map((l) => l.trim())) {
      assert.ok(available.has(label), `${where}: "by (${list})" names ${label}, which its metrics do not have`);
    }
  }
  return names;
}

describe('monitoring files', () => {
  it('the Grafana dashboard queries only metrics and labels the platform serves, and shows every metric', () => {
    const shown = new Set<string>();
    for (const panel of dashboard.panels) {
      assert.ok(panel.targets.length > 0, `${panel.title} has a query`);
      for (const target of panel.targets) {
        for (const name of checkExpression(target.expr, `panel "${panel.title}"`)) shown.add(name);
      }
    }
    for (const name of series.keys()) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      assert.ok(
        [...shown].some((s) => s.startsWith(base)),
        `the dashboard shows ${base}`,
      );
    }
  });

  it('the alert rules are complete and query only metrics and labels the platform serves', () => {
    assert.ok(rules.length >= 5, `${rules.length} rules`);
    const names = new Set<string>();
    for (const rule of rules) {
      assert.match(rule.alert, /^Mountain[A-Z]\w+$/);
      assert.ok(!names.has(rule.alert), `${rule.alert} is defined once`);
      names.add(rule.alert);
      assert.ok(checkExpression(rule.expr, rule.alert).length > 0, `${rule.alert} queries the platform`);
      assert.match(rule.for, /^\d+[smh]$/, `${rule.alert}: for`);
      assert.ok(['warning', 'critical'].includes(rule.labels.severity as string), `${rule.alert}: severity`);
      assert.ok(rule.annotations.summary, `${rule.alert}: summary`);
      // An annotation can only quote the labels its expression keeps.
      const kept =
        /\bby \(([^)]*)\)/
          .exec(rule.expr)?.[1]
          ?.split(',')
          .map((l) => l.trim()) ?? [];
      for (const [, label] of Object.values(rule.annotations)
        .join(' ')
        .matchAll(/\$labels\.(\w+)/g)) {
        assert.ok(kept.includes(label as string), `${rule.alert} quotes $labels.${label}, which "by" drops`);
      }
    }
  });
});
