// npm run bench:report: renders BENCHMARKS.md from the benches' result files (scripts/lib/benchReport.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_RESULTS_DIR } from '@mountain/testkit/benchResults.ts';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { benchScripts, readResults, renderBenchmarks } from './lib/benchReport.ts';

const scripts = benchScripts();
const results = readResults(
  BENCH_RESULTS_DIR,
  scripts.map((s) => s.bench),
);
writeFileSync(path.join(REPO_ROOT, 'BENCHMARKS.md'), renderBenchmarks(scripts, results));
const recorded = scripts.filter((s) => (results.get(s.bench) ?? []).length > 0).length;
console.log(`BENCHMARKS.md: ${scripts.length} benches, ${recorded} with recorded runs`);
