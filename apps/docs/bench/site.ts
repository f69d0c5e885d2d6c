// Lighthouse (mobile) on the built site: median of 3 runs per page, the four category scores and the JavaScript
// bytes each page transfers. Run: npm run bench:site (after npm run build -w @mountain/docs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@mountain/testkit/browser.ts';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { serveBuild } from '../scripts/staticServer.ts';

const PAGES = ['/', '/docs/intro', '/api-reference'];
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGETS: Record<string, number> = { '/': 95, '/docs/intro': 95, '/api-reference': 90 };
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

interface Run {
  scores: Record<(typeof CATEGORIES)[number], number>;
  jsBytes: number;
  metrics: Record<string, number>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function audit(url: string): Promise<Run> {
  const profile = mkdtempSync(path.join(tmpdir(), 'mountain-bench-'));
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: CHROMIUM_ARGS,
    userDataDir: profile,
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
      formFactor: 'mobile',
    });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
    const scores = Object.fromEntries(
      CATEGORIES.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]),
    ) as Run['scores'];
    const items =
      (lhr.audits['network-requests']?.details as { items?: { resourceType?: string; transferSize?: number }[] })
        ?.items ?? [];
    const jsBytes = items.filter((i) => i.resourceType === 'Script').reduce((sum, i) => sum + (i.transferSize ?? 0), 0);
    const metrics = Object.fromEntries(
      [
        'first-contentful-paint',
        'largest-contentful-paint',
        'total-blocking-time',
        'cumulative-layout-shift',
        'speed-index',
      ].map((id) => [id, lhr.audits[id]?.numericValue ?? Number.NaN]),
    );
    const failing = Object.values(lhr.audits)
      .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary')
      .map((a) => a.id);
    if (failing.length > 0 && process.env.BENCH_VERBOSE) console.log(`  ${url} failing audits: ${failing.join(', ')}`);
    return { scores, jsBytes, metrics };
  } finally {
    chrome.kill();
    rmSync(profile, { recursive: true, force: true });
  }
}

const site = await serveBuild();
let failed = false;
try {
  console.log(`Lighthouse ${RUNS}× per page, mobile, ${site.origin}\n`);
  console.log('page             perf  a11y  bp   seo   JS bytes (transfer)  FCP ms  LCP ms  TBT ms');
  for (const page of PAGES) {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await audit(`${site.origin}${page}`));
    const m = (pick: (r: Run) => number) => median(runs.map(pick));
    const perf = m((r) => r.scores.performance);
    const row = [
      page.padEnd(16),
      String(perf).padEnd(5),
      String(m((r) => r.scores.accessibility)).padEnd(5),
      String(m((r) => r.scores['best-practices'])).padEnd(4),
      String(m((r) => r.scores.seo)).padEnd(5),
      String(m((r) => r.jsBytes)).padEnd(20),
      String(Math.round(m((r) => r.metrics['first-contentful-paint'] ?? 0))).padEnd(7),
      String(Math.round(m((r) => r.metrics['largest-contentful-paint'] ?? 0))).padEnd(7),
      String(Math.round(m((r) => r.metrics['total-blocking-time'] ?? 0))),
    ];
    console.log(row.join(' '));
    const others = (['accessibility', 'best-practices', 'seo'] as const).map((c) => m((r) => r.scores[c]));
    if (perf < (TARGETS[page] ?? 90) || others.some((s) => s < 100)) failed = true;
  }
} finally {
  await site.close();
}
console.log(
  failed ? '\nBelow target (perf ≥ 95 docs, ≥ 90 /api-reference; other categories 100).' : '\nAll targets met.',
);
process.exitCode = failed ? 1 : 0;
