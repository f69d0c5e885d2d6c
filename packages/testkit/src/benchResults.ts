// Benchmarks as data: each `npm run bench:*` ends with recordBench(name, figures), which appends the run (its
// headline figures with their targets, the parameters it was given and the machine it ran on) to
// bench/results/<name>.json, an array of runs, newest last, the last RESULTS_KEPT of them. `npm run bench:report`
// renders BENCHMARKS.md from those files (scripts/lib/benchReport.ts). BENCH_RESULTS=0 records nothing (an ad-hoc
// run); a run given other BENCH_* variables records them, and the report says so.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './repoRoot.ts';

/** The committed folder of the result files. */
export const BENCH_RESULTS_DIR = path.join(REPO_ROOT, 'bench/results');
/** How many runs a result file keeps (the oldest go first). */
export const RESULTS_KEPT = 20;

export interface Target {
  op: '>=' | '<=';
  value: number;
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: Target;
  /** Whether the target was met; computed from the target when not given. */
  held?: boolean;
}

export interface Machine {
  cores: number;
  cpu: string;
  /** os.loadavg() when the bench started (this module's import) and when it recorded. */
  loadStart: number[];
  loadEnd: number[];
  node: string;
  platform: string;
}

export interface BenchRun {
  date: string;
  commit: string;
  /** Uncommitted changes to tracked files when the bench started (but results and BENCHMARKS.md). */
  dirty: boolean;
  machine: Machine;
  /** The BENCH_* variables the run was given (empty: the defaults). */
  parameters: Record<string, string>;
  figures: Figure[];
}

/** Variables that steer the recording itself, not the measurement. */
const NOT_PARAMETERS = new Set(['BENCH_RESULTS', 'BENCH_RESULTS_DIR']);

export function benchParameters(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env)
      .filter(([key, value]) => key.startsWith('BENCH_') && !NOT_PARAMETERS.has(key) && value !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  ) as Record<string, string>;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

// The start of the run (this module is imported when a bench starts): the load, and the code that runs.
const loadAtStart = os.loadavg();
const commitAtStart = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
// Results and the report they render are data, not code: a bench run before the last one's results are committed
// still ran committed code.
const dirtyAtStart =
  git(['status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/results', ':!BENCHMARKS.md']) !== '';

export function machine(): Machine {
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    loadStart: loadAtStart.map(round),
    loadEnd: os.loadavg().map(round),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
  };
}

/** Whether a value meets its target (true when there is none). */
export function meets(value: number, target: Target | undefined): boolean {
  if (!target) return true;
  return target.op === '>=' ? value >= target.value : value <= target.value;
}

/** Appends a run to a result file (created when missing), keeping the last `kept`; written to a temporary file
 * and renamed over the old one, so that a reader never sees half a file. Answers the runs now in the file. */
export function appendRun(file: string, run: BenchRun, kept = RESULTS_KEPT): BenchRun[] {
  let runs: BenchRun[] = [];
  try {
    runs = JSON.parse(readFileSync(file, 'utf8')) as BenchRun[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (!Array.isArray(runs)) throw new Error(`${file} does not hold an array of runs`);
  const next = [...runs, run].slice(-kept);
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(temporary, file);
  return next;
}

/** Records a bench's run in bench/results/<bench>.json (BENCH_RESULTS_DIR overrides the folder; BENCH_RESULTS=0
 * records nothing). Answers the run recorded, or undefined. */
export function recordBench(
  bench: string,
  figures: Figure[],
  env: NodeJS.ProcessEnv = process.env,
): BenchRun | undefined {
  if (!/^[a-z][a-z0-9-]*$/.test(bench)) throw new Error(`bench name "${bench}": lower-case letters, digits and -`);
  const checked = figures.map((f) => {
    if (!Number.isFinite(f.value)) throw new Error(`${bench}: figure "${f.name}" is ${f.value}`);
    return { ...f, held: f.held ?? meets(f.value, f.target) };
  });
  if (env.BENCH_RESULTS === '0') return undefined;
  const run: BenchRun = {
    date: new Date().toISOString(),
    commit: commitAtStart,
    dirty: dirtyAtStart,
    machine: machine(),
    parameters: benchParameters(env),
    figures: checked,
  };
  const file = path.join(
    env.BENCH_RESULTS_DIR ? path.resolve(env.BENCH_RESULTS_DIR) : BENCH_RESULTS_DIR,
    `${bench}.json`,
  );
  appendRun(file, run);
  console.log(`\nrecorded in ${path.relative(REPO_ROOT, file) || file} (npm run bench:report renders BENCHMARKS.md)`);
  return run;
}
