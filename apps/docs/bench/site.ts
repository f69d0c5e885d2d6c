// Lighthouse (mobile, simulated throttling) on the built site and, interleaved in the same run, on a stock
// Docusaurus + redocusaurus site rendering the same OpenAPI file (bench/stockSite.ts): BENCH_RUNS (5) rounds, each
// auditing every page of ours and then the same page of the stock site, so that both see the same machine. Prints,
// per site and page, the medians of the four scores, FCP, LCP, TBT and the JavaScript transferred (compressed), and
// each round's load average and Lighthouse CPU benchmark index. Targets, ours: performance ≥ 95 on every page,
// LCP ≤ 1.2 s, TBT ≤ 150 ms, JavaScript ≤ 80 KB on a doc page (/docs/intro), accessibility, best practices and
// SEO 100. BENCH_STOCK=0 leaves the stock site out. Run: npm run bench:site (after npm run build -w @mountain/docs).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { type Figure, recordBench } from '@mountain/testkit/benchResults.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@mountain/testkit/browser.ts';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { type StaticSite, serveBuild } from '../scripts/staticServer.ts';
import { stockSiteBuild } from './stockSite.ts';

const PAGES = ['/', '/docs/intro', '/api-reference'];
const DOC_PAGE = '/docs/intro';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const WITH_STOCK = process.env.BENCH_STOCK !== '0';
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const TARGET = { performance: 95, lcpMs: 1_200, tbtMs: 150, docJsBytes: 80 * 1024 };

interface Run {
  scores: Record<(typeof CATEGORIES)[number], number>;
  jsBytes: number;
  fcp: number;
  lcp: number;
  tbt: number;
  benchmarkIndex: number;
  version: string;
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
    const metric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
    if (process.env.BENCH_VERBOSE) {
      const failing = Object.values(lhr.audits)
        .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary')
        .map((a) => a.id);
      if (failing.length > 0) console.log(`  ${url} failing audits: ${failing.join(', ')}`);
    }
    return {
      scores,
      jsBytes,
      fcp: metric('first-contentful-paint'),
      lcp: metric('largest-contentful-paint'),
      tbt: metric('total-blocking-time'),
      benchmarkIndex: lhr.environment.benchmarkIndex,
      version: lhr.lighthouseVersion,
    };
  } finally {
    chrome.kill();
    rmSync(profile, { recursive: true, force: true });
  }
}

const sites: { name: string; site: StaticSite }[] = [{ name: 'ours', site: await serveBuild() }];
if (WITH_STOCK) sites.push({ name: 'stock', site: await serveBuild(stockSiteBuild()) });
const runs = new Map<string, Run[]>(); // `${site} ${page}`
const figures: Figure[] = [];
let failed = false;
try {
  console.log(
    `Lighthouse, mobile, ${RUNS} rounds; each round audits every page of ${sites.map((s) => s.name).join(' and then ')}\n`,
  );
  for (let round = 1; round <= RUNS; round++) {
    const indexes: number[] = [];
    for (const page of PAGES) {
      for (const { name, site } of sites) {
        const run = await audit(`${site.origin}${page}`);
        runs.set(`${name} ${page}`, [...(runs.get(`${name} ${page}`) ?? []), run]);
        indexes.push(run.benchmarkIndex);
      }
    }
    console.log(
      `round ${round}: load average ${loadavg()[0]?.toFixed(1)}, CPU benchmark index ${Math.min(...indexes).toFixed(0)}–${Math.max(...indexes).toFixed(0)}`,
    );
  }
  const version = runs.values().next().value?.[0]?.version;
  console.log(`\nMedians (Lighthouse ${version}):`);
  console.log('site   page             perf  a11y  bp   seo   JS KB   FCP ms  LCP ms  TBT ms');
  for (const page of PAGES) {
    for (const { name } of sites) {
      const all = runs.get(`${name} ${page}`) ?? [];
      const m = (pick: (r: Run) => number) => median(all.map(pick));
      const perf = m((r) => r.scores.performance);
      const [lcp, tbt, js] = [m((r) => r.lcp), m((r) => r.tbt), m((r) => r.jsBytes)];
      console.log(
        [
          name.padEnd(6),
          page.padEnd(16),
          String(perf).padEnd(5),
          String(m((r) => r.scores.accessibility)).padEnd(5),
          String(m((r) => r.scores['best-practices'])).padEnd(4),
          String(m((r) => r.scores.seo)).padEnd(5),
          (js / 1024).toFixed(1).padEnd(7),
          String(Math.round(m((r) => r.fcp))).padEnd(7),
          String(Math.round(lcp)).padEnd(7),
          String(Math.round(tbt)),
          `  (performance by round: ${all.map((r) => r.scores.performance).join(', ')})`,
        ].join(' '),
      );
      if (name !== 'ours') continue;
      const others = (['accessibility', 'best-practices', 'seo'] as const).map((c) => m((r) => r.scores[c]));
      if (perf < TARGET.performance || lcp > TARGET.lcpMs || tbt > TARGET.tbtMs || others.some((s) => s < 100)) {
        failed = true;
      }
      if (page === DOC_PAGE && js > TARGET.docJsBytes) failed = true;
      figures.push(
        { name: `${page} performance`, value: perf, unit: '', target: { op: '>=', value: TARGET.performance } },
        { name: `${page} LCP`, value: Math.round(lcp), unit: 'ms', target: { op: '<=', value: TARGET.lcpMs } },
        { name: `${page} TBT`, value: Math.round(tbt), unit: 'ms', target: { op: '<=', value: TARGET.tbtMs } },
        {
          name: `${page} a11y / bp / SEO (lowest)`,
          value: Math.min(...others),
          unit: '',
          target: { op: '>=', value: 100 },
        },
      );
      if (page === DOC_PAGE) {
        figures.push({
          name: `${page} JavaScript`,
          value: Number((js / 1024).toFixed(1)),
          unit: 'KB',
          target: { op: '<=', value: TARGET.docJsBytes / 1024 },
        });
      }
    }
  }
} finally {
  for (const { site } of sites) await site.close();
}
console.log(
  failed
    ? `\nBelow target (ours: performance ≥ ${TARGET.performance}, LCP ≤ ${TARGET.lcpMs} ms, TBT ≤ ${TARGET.tbtMs} ms on every page; JavaScript ≤ 80 KB on ${DOC_PAGE}; other categories 100).`
    : '\nAll targets met.',
);
recordBench('site', figures);
process.exitCode = failed ? 1 : 0;
