// The whole test suite: static checks, generated-file drift, the docs build, then every test file under
// Node's test runner against one real PostgreSQL started here (each test file makes its own databases).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@mountain/testkit/ports.ts';
import pg from 'pg';
import { ensureConsoleBuilt } from './lib/consoleBuild.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);

function step(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (result.status !== 0) {
    console.error(`✖ ${title} failed`);
    process.exit(result.status ?? 1);
  }
}

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
  return found.sort().filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
}

const files = testFiles();
if (only.length === 0) {
  step('lint', 'npx', ['biome', 'check', '.']);
  step('typecheck', 'npm', ['run', '-s', 'typecheck']);
}
// The docs tests and the container image's test (the docs image holds the built site) need the site built.
const needsDocs = (f: string) => f.startsWith('apps/docs/') || f === 'scripts/image.test.ts';
if (files.some(needsDocs) && existsSync(path.join(ROOT, 'apps/docs/docusaurus.config.ts'))) {
  step('docs build', 'npm', ['run', '-s', 'build', '-w', '@mountain/docs']);
}

// The console's tests, and the image's (the platform image holds the console), need the console built.
const needsConsole = (f: string) => f.startsWith('apps/console/') || f === 'scripts/image.test.ts';
if (files.some(needsConsole)) {
  console.log('\n▶ console build');
  ensureConsoleBuilt(path.join(ROOT, 'apps/console'), console.log);
}

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
await admin.query('DROP DATABASE IF EXISTS mountain_test_template');
await admin.query('CREATE DATABASE mountain_test_template');
await admin.end();
const templateUrl = new URL(adminUrl);
templateUrl.pathname = '/mountain_test_template';
const templateDb = createDb(templateUrl.toString(), { max: 1 });
await migrate(templateDb);
await templateDb.close();

let status = 0;
try {
  console.log(`\n▶ ${files.length} test files`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        NODE_ENV: 'test',
        TEST_PG_ADMIN_URL: adminUrl,
        TEST_PG_TEMPLATE: 'mountain_test_template',
      },
    },
  );
  status = result.status ?? 1;
} finally {
  await stopPostgres();
}
process.exit(status);
