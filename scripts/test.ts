// The whole test suite: the docs and console builds, then every test file under Node's test runner against one real
// PostgreSQL started here (each test file makes its own databases), with the static checks beside them. The test
// files run bundled (@mountain/testkit/devBundle.js: a third of the start-up time of each test process through tsx);
// MOUNTAIN_TEST_TSX=1 runs their sources through tsx instead.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCacheOf, bundleOptions, vendorBundle } from '@mountain/testkit/devBundle.js';
import { freePort } from '@mountain/testkit/ports.ts';
import pg from 'pg';
import { consoleIsBuilt } from './lib/siteBuilds.ts';
import { TYPECHECKED_PROJECTS, typecheckCommand } from './lib/typecheck.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
/** `--long` (npm run test:long): the long tests only, which the whole suite leaves out (LONG_TESTS). */
const long = args.includes('--long');
const only = args.filter((arg) => arg !== '--long');

function testFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'build', 'dist', '.docusaurus', '.data'].includes(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts')) found.push(path.relative(ROOT, full));
    }
  };
  for (const dir of ['apps', 'packages', 'scripts']) walk(path.join(ROOT, dir));
  const chosen = found
    .sort()
    .filter((f) =>
      long ? LONG_TESTS.includes(f) : only.length === 0 ? !LONG_TESTS.includes(f) : only.some((o) => f.includes(o)),
    );
  // The longest files start first, so that none of them is left to run alone at the end (two run at a time).
  const rank = (f: string) => (SLOWEST.includes(f) ? SLOWEST.indexOf(f) : SLOWEST.length);
  return chosen.sort((a, b) => rank(a) - rank(b));
}

/** The test files that take longest (30–170 s each on a 2-core machine while the others run), longest first. */
const SLOWEST = [
  'apps/api/test/transactionsCanonical.test.ts',
  'scripts/image.test.ts',
  'apps/api/test/faults.test.ts',
  'apps/docs/test/site.test.ts',
  'apps/api/test/custody/fireblocksOutage.test.ts',
  'apps/api/test/custody/kmsOutage.test.ts',
  'apps/api/test/eventNotifier/backfill.test.ts',
  'apps/console/test/console.test.ts',
  'apps/console/test/layout.test.ts',
  'scripts/start.test.ts',
  'scripts/packSdks.test.ts',
  'apps/docs/test/samples.test.ts',
  'apps/api/test/eventNotifier/reorgsLive.test.ts',
  'apps/api/test/fuzz.test.ts',
  'apps/api/test/transactionRecovery.test.ts',
  'apps/api/test/eventNotifier/delivery.test.ts',
  'apps/api/test/eventNotifier/workers.test.ts',
];

/**
 * The long tests, run by `npm run test:long` and not by the whole suite (`npm test`), so that it stays within its
 * time on a 2-core machine: the fault scenarios, each holding the platform to its invariants through half a minute or
 * more of an outage or of killed processes (`npm run faults` and `npm run chaos` inject the same faults, and more,
 * into a mixed load), and the container images' build steps run into a clean directory and started (three minutes
 * beside the other files). A file named on the command line runs whatever it is.
 */
const LONG_TESTS = [
  'scripts/image.test.ts',
  'apps/api/test/faults.test.ts',
  'apps/api/test/custody/fireblocksOutage.test.ts',
  'apps/api/test/custody/kmsOutage.test.ts',
];

const stale = [...SLOWEST, ...LONG_TESTS].filter((f) => !existsSync(path.join(ROOT, f)));
if (stale.length > 0) {
  console.error(`✖ scripts/test.ts lists test files that do not exist: ${stale.join(', ')}`);
  process.exit(1);
}
const files = testFiles();

interface Step {
  title: string;
  command: string;
  args: string[];
}
class BuildFailed extends Error {
  constructor(titles: string[]) {
    super(titles.join(', '));
  }
}

/** Runs the steps `width` at a time, in order; each step's output is printed whole when it ends. Answers the titles
 * of those that failed. */
async function runSteps(steps: Step[], width: number): Promise<string[]> {
  const queue = [...steps];
  const failed: string[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { title, command, args } = next;
      const started = performance.now();
      const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      for (const stream of [child.stdout, child.stderr]) {
        stream.on('data', (chunk) => {
          output += chunk;
        });
      }
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`\n${code === 0 ? '▶' : '✖'} ${title} (${seconds} s)${output.trim() ? `\n${output.trimEnd()}` : ''}`);
      if (code !== 0) failed.push(title);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return failed;
}

// What the test files need first: the docs tests and the container image's test (the docs image holds the built
// site) need the site built; the console's tests, and the image's (the platform image holds the console), the console.
const builds: Step[] = [];
const needsDocs = (f: string) => f.startsWith('apps/docs/') || f === 'scripts/image.test.ts';
if (files.some(needsDocs) && existsSync(path.join(ROOT, 'apps/docs/docusaurus.config.ts'))) {
  builds.push({ title: 'docs build', command: 'npm', args: ['run', '-s', 'build', '-w', '@mountain/docs'] });
}
const needsConsole = (f: string) => f.startsWith('apps/console/') || f === 'scripts/image.test.ts';
if (files.some(needsConsole) && !consoleIsBuilt(ROOT)) {
  builds.push({ title: 'console build', command: 'npm', args: ['run', '-s', 'build', '-w', '@mountain/console'] });
}
// The builds run while PostgreSQL starts, the template is migrated and the test files are bundled: none of these
// reads what the builds write. The tests start once both are done.
const building = runSteps(builds, 2);

// The static checks, when every file runs: the typechecks (scripts/lib/typecheck.ts: the Node side in one program,
// the docs site's and the console's React sources) and the linter. They run one at a time beside the test files, at
// a lower priority (nice): a test file waiting on blocks, timers or a browser leaves a core idle, and the checks take
// that instead of a minute of both cores before the first test.
const checks: Step[] = [];
if (only.length === 0 && !long) {
  for (const project of TYPECHECKED_PROJECTS) {
    checks.push({
      title: `typecheck ${project}`,
      command: 'nice',
      args: ['-n', '10', ...typecheckCommand(ROOT, project)],
    });
  }
  checks.push({ title: 'lint', command: 'nice', args: ['-n', '10', 'npx', 'biome', 'check', '.'] });
}
// Not after a failed build: the run ends then, and would leave a check running.
const checking = building.then((failed) => (failed.length > 0 ? [] : runSteps(checks, 1)));

// One PostgreSQL for the run: TEST_DATABASE_URL (a server where databases may be created) or an embedded one.
let adminUrl = process.env.TEST_DATABASE_URL;
let stopPostgres = async () => {};
const runDir = path.join(ROOT, '.data', `test-run-${process.pid}`);
if (!adminUrl) {
  const { startEmbeddedPostgres } = await import('../apps/api/src/db/embeddedPostgres.ts');
  mkdirSync(runDir, { recursive: true });
  const server = await startEmbeddedPostgres(path.join(runDir, 'postgres'), await freePort());
  adminUrl = server.adminUrl;
  stopPostgres = async () => {
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
  };
}
// A migrated template: each test database is a copy of it, made in milliseconds.
const { createDb } = await import('../apps/api/src/db/db.ts');
const { migrate } = await import('../apps/api/src/db/migrate.ts');
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
if (!process.env.TEST_DATABASE_URL) {
  // The run's own server, thrown away at its end, whose password is no secret: stored as a SCRAM verifier of one
  // iteration instead of 4,096, it costs the server one hash instead of 4,096 on each of the run's ~1,600 connections
  // (12 s of CPU a run, measured), and is still checked.
  await admin.query('SET scram_iterations = 1');
  await admin.query(`ALTER ROLE CURRENT_USER PASSWORD '${new URL(adminUrl).password}'`);
}
await admin.query('DROP DATABASE IF EXISTS mountain_test_template');
await admin.query('CREATE DATABASE mountain_test_template');
await admin.end();
const templateUrl = new URL(adminUrl);
templateUrl.pathname = '/mountain_test_template';
const templateDb = createDb(templateUrl.toString(), { max: 1 });
await migrate(templateDb);
await templateDb.close();

/**
 * The test files as bundles (their shared code in chunks), in the order of `files`: one folder per workspace, in its
 * node_modules, so that what each leaves to Node resolves as from its sources.
 */
async function bundleTests(): Promise<string[]> {
  const { build } = await import('esbuild');
  const byWorkspace = new Map<string, string[]>();
  for (const file of files)
    byWorkspace.set(bundleCacheOf(file), [...(byWorkspace.get(bundleCacheOf(file)) ?? []), file]);
  const bundled = new Map<string, string>();
  for (const [cache, group] of byWorkspace) {
    const outdir = path.join(cache, `tests-${process.pid}`);
    bundleDirs.push(outdir);
    await build({
      ...bundleOptions(await vendorBundle(cache)),
      entryPoints: group,
      absWorkingDir: ROOT,
      outdir,
      outbase: path.resolve(cache, '../../..'),
      splitting: true,
      outExtension: { '.js': '.mjs' },
    });
    for (const file of group) {
      const relative = path.relative(path.resolve(cache, '../../..'), path.join(ROOT, file));
      bundled.set(file, path.join(outdir, relative.replace(/\.ts$/, '.mjs')));
    }
  }
  return files.map((file) => bundled.get(file) as string);
}

const bundleDirs: string[] = [];
let status = 0;
try {
  const runnable = process.env.MOUNTAIN_TEST_TSX === '1' ? files : await bundleTests();
  const failedBuilds = await building;
  if (failedBuilds.length > 0) throw new BuildFailed(failedBuilds);
  const loader = process.env.MOUNTAIN_TEST_TSX === '1' ? ['--import', 'tsx'] : ['--enable-source-maps'];
  console.log(`\n▶ ${files.length} test files`);
  // Not spawnSync: this process must go on reading the embedded PostgreSQL's output, or once the pipe is full
  // every PostgreSQL process that logs (the checkpointer that DROP DATABASE waits for) blocks, and the tests with it.
  const child = spawn(process.execPath, [...loader, path.join(ROOT, 'scripts/lib/runTestFiles.js'), ...runnable], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_ENV: 'test',
      TEST_PG_ADMIN_URL: adminUrl,
      TEST_PG_TEMPLATE: 'mountain_test_template',
    },
  });
  status = (await new Promise<number | null>((resolve) => child.once('close', resolve))) ?? 1;
  const failedChecks = await checking;
  if (failedChecks.length > 0) {
    console.error(`✖ failed: ${failedChecks.join(', ')}`);
    status = 1;
  }
} catch (error) {
  if (!(error instanceof BuildFailed)) throw error;
  console.error(`✖ failed: ${error.message}`);
  status = 1;
} finally {
  for (const dir of bundleDirs) rmSync(dir, { recursive: true, force: true });
  await stopPostgres();
}
process.exit(status);
