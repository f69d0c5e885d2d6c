// Benchmarks as data: BENCHMARKS.md is what `npm run bench:report` renders from the committed result files, the
// writer appends and caps, and every bench records its run. Runs no bench.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  appendRun,
  BENCH_RESULTS_DIR,
  type BenchRun,
  benchParameters,
  recordBench,
} from '@mountain/testkit/benchResults.ts';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { benchScripts, HEADER, readResults, renderBenchmarks, workspaces } from './lib/benchReport.ts';

const scripts = benchScripts();
const temporary = mkdtempSync(path.join(tmpdir(), 'mountain-bench-results-'));
after(() => rmSync(temporary, { recursive: true, force: true }));

function run(date: string, figures: BenchRun['figures'], parameters: Record<string, string> = {}): BenchRun {
  return {
    date,
    commit: 'abc1234',
    dirty: false,
    machine: {
      cores: 2,
      cpu: 'Test CPU',
      loadStart: [1.5, 1, 1],
      loadEnd: [2.25, 1, 1],
      node: 'v22.0.0',
      platform: 'linux x64',
    },
    parameters,
    figures,
  };
}

describe('BENCHMARKS.md', () => {
  it('is what npm run bench:report renders from bench/results/*.json', () => {
    const rendered = renderBenchmarks(
      scripts,
      readResults(
        BENCH_RESULTS_DIR,
        scripts.map((s) => s.bench),
      ),
    );
    const committed = readFileSync(path.join(REPO_ROOT, 'BENCHMARKS.md'), 'utf8');
    assert.ok(committed.startsWith(`${HEADER}\n`));
    assert.equal(committed, rendered, 'BENCHMARKS.md is stale: npm run bench:report');
    const files = readdirSync(BENCH_RESULTS_DIR).filter((f) => f.endsWith('.json'));
    const unknown = files.filter((f) => !scripts.some((s) => `${s.bench}.json` === f));
    assert.deepEqual(unknown, [], 'result files of no bench:* script');
  });

  it('renders the latest run and up to 4 before it, newest first, with targets, PASS or short, and parameters', () => {
    const runs = Array.from({ length: 7 }, (_, i) =>
      run(
        `2026-01-0${i + 1}T10:00:00.000Z`,
        [
          { name: 'rate', value: 1000 + i, unit: 'req/s' },
          { name: 'ratio', value: i % 2 ? 0.9 : 0.5, unit: '', target: { op: '>=', value: 0.8 } },
        ],
        i === 6 ? { BENCH_SECONDS: '3' } : {},
      ),
    );
    const text = renderBenchmarks(
      [
        { bench: 'one', workspace: 'apps/api', entry: 'apps/api/bench/one.ts' },
        { bench: 'two', workspace: 'apps/api', entry: 'apps/api/bench/two.ts' },
      ],
      new Map([['one', runs]]),
    );
    const rows = text.split('\n').filter((l) => l.startsWith('| 2026-'));
    assert.deepEqual(
      rows.map((r) => r.slice(2, 12)),
      ['2026-01-07', '2026-01-06', '2026-01-05', '2026-01-04', '2026-01-03'],
    );
    assert.match(
      text,
      /\| date \(UTC\) \| commit \| machine \(cores, load start → end\) \| parameters \| rate \(req\/s\) \| ratio \(target ≥ 0\.8\) \|/,
    );
    assert.match(
      rows[0] as string,
      /^\| 2026-01-07 10:00 \| abc1234 \| 2 cores, 1\.5 → 2\.25 \| BENCH_SECONDS=3 \| 1,006 \| 0\.5 short \|$/,
    );
    assert.match(rows[1] as string, /\| defaults \| 1,005 \| 0\.9 PASS \|$/);
    assert.match(text, /## bench:two\n\nNo run recorded yet: run `npm run bench:two`\./);
    assert.match(text, /Reproduce: `npm run bench:one`.*\[apps\/api\/bench\/one\.ts\]\(apps\/api\/bench\/one\.ts\)/);
  });
});

describe('the result files', () => {
  it('appendRun adds the run last and keeps only the newest, through a rename (no temporary file left)', () => {
    const file = path.join(temporary, 'capped', 'x.json');
    for (let i = 1; i <= 4; i++) appendRun(file, run(`2026-01-0${i}T00:00:00.000Z`, []), 3);
    const runs = JSON.parse(readFileSync(file, 'utf8')) as BenchRun[];
    assert.deepEqual(
      runs.map((r) => r.date.slice(0, 10)),
      ['2026-01-02', '2026-01-03', '2026-01-04'],
    );
    assert.deepEqual(readdirSync(path.dirname(file)), ['x.json']);
    writeFileSync(file, '{"not":"runs"}');
    assert.throws(() => appendRun(file, run('2026-01-05T00:00:00.000Z', [])), /does not hold an array/);
  });

  it('recordBench records the figures with held, the parameters and the machine; BENCH_RESULTS=0 records nothing', () => {
    const env = { BENCH_RESULTS_DIR: temporary, BENCH_SECONDS: '3', HOME: '/x' };
    const figures = [
      { name: 'p99', value: 40, unit: 'ms', target: { op: '<=' as const, value: 50 } },
      { name: 'rate', value: 600, unit: 'tx/s', target: { op: '>=' as const, value: 700 } },
    ];
    assert.equal(recordBench('sample', figures, { ...env, BENCH_RESULTS: '0' }), undefined);
    assert.deepEqual(readdirSync(temporary).includes('sample.json'), false);
    recordBench('sample', figures, env);
    const [recorded] = JSON.parse(readFileSync(path.join(temporary, 'sample.json'), 'utf8')) as BenchRun[];
    assert.deepEqual(
      recorded?.figures.map((f) => f.held),
      [true, false],
    );
    assert.deepEqual(recorded?.parameters, { BENCH_SECONDS: '3' });
    assert.match(recorded?.commit ?? '', /^[0-9a-f]{7,}$/);
    assert.ok((recorded?.machine.cores ?? 0) >= 1 && recorded?.machine.cpu);
    assert.equal(recorded?.machine.loadStart.length, 3);
    assert.ok(!Number.isNaN(Date.parse(recorded?.date ?? '')));
    assert.throws(() => recordBench('sample', [{ name: 'x', value: Number.NaN, unit: '' }], env), /is NaN/);
    assert.deepEqual(benchParameters({ BENCH_RESULTS: '1', BENCH_RESULTS_DIR: '/d', BENCH_RUNS: '1' }), {
      BENCH_RUNS: '1',
    });
  });
});

describe('every bench records its run', () => {
  it('every bench:* script of every workspace is run by a root bench:* script', () => {
    const reached = new Set(scripts.map((s) => s.entry));
    const missing: string[] = [];
    for (const folder of workspaces().values()) {
      const { scripts: own = {} } = JSON.parse(readFileSync(path.join(REPO_ROOT, folder, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
      };
      for (const [name, command] of Object.entries(own)) {
        if (!name.startsWith('bench:')) continue;
        const file = /^node --import tsx (\S+\.ts)$/.exec(command)?.[1];
        if (!file || !reached.has(path.posix.join(folder, file))) missing.push(`${folder} ${name}: ${command}`);
      }
    }
    assert.ok(scripts.length >= 8, `${scripts.length} bench scripts`);
    assert.deepEqual(missing, []);
  });

  it("each bench's entry file, or a file it imports, calls recordBench with the bench's name", () => {
    const calls = (source: string, bench: string) => source.includes(`recordBench('${bench}'`);
    const missing = scripts.filter(({ bench, entry }) => {
      const source = readFileSync(path.join(REPO_ROOT, entry), 'utf8');
      if (calls(source, bench)) return false;
      const imported = [...source.matchAll(/from '(\.\.?\/[^']+\.ts)'/g)].map((m) =>
        path.join(REPO_ROOT, path.dirname(entry), m[1] as string),
      );
      return !imported.some((file) => calls(readFileSync(file, 'utf8'), bench));
    });
    assert.deepEqual(
      missing.map((s) => s.entry),
      [],
    );
  });
});
