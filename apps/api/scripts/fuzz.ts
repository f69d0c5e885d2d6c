// npm run fuzz — spec-driven fuzzing of the Public API v3 (scripts/lib/fuzz/): FUZZ_RUNS requests per operation
// (default 300) generated from the OpenAPI document with FUZZ_SEED (printed), over HTTP on loopback, against a
// throwaway embedded PostgreSQL and anvil. Prints a table per operation and every failure; exits 1 on any, or when
// a request blocked the event loop of the server (which runs in this process) for more than 50 ms.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { freePort } from '@mountain/testkit/ports.ts';
import pg from 'pg';
import { REPO_ROOT } from '#api/config/config.ts';
import { createDb } from '#api/db/db.ts';
import { startEmbeddedPostgres } from '#api/db/embeddedPostgres.ts';
import { migrate } from '#api/db/migrate.ts';
import { startFuzzEnvironment } from './lib/fuzz/environment.ts';
import { formatReport } from './lib/fuzz/report.ts';
import { checkHealth, type OperationResult, runOperation } from './lib/fuzz/run.ts';
import { fuzzSettings } from './lib/fuzz/settings.ts';

const deadline = setTimeout(() => {
  console.error('npm run fuzz did not finish within 15 minutes');
  process.exit(1);
}, 900_000);
deadline.unref();

const { seed, runs } = fuzzSettings(300);
/** The longest the event loop may be blocked while requests are served. */
const MAX_EVENT_LOOP_DELAY_MS = 50;
console.log(`Fuzzing the Public API v3: ${runs} requests per operation, seed ${seed} (FUZZ_SEED, FUZZ_RUNS override)`);

const dir = path.join(REPO_ROOT, '.data', `fuzz-${process.pid}`);
mkdirSync(dir, { recursive: true });
const server = await startEmbeddedPostgres(path.join(dir, 'postgres'), await freePort());
let status = 1;
try {
  // The test harness copies each database from a migrated template, as `npm test` does.
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS mountain_fuzz_template');
  await admin.query('CREATE DATABASE mountain_fuzz_template');
  await admin.end();
  const template = createDb(server.urlFor('mountain_fuzz_template'), { max: 1 });
  await migrate(template);
  await template.close();
  process.env.TEST_PG_ADMIN_URL = server.adminUrl;
  process.env.TEST_PG_TEMPLATE = 'mountain_fuzz_template';

  const env = await startFuzzEnvironment();
  try {
    const results: OperationResult[] = [];
    const started = Date.now();
    // The server answers in this process: a request that keeps its event loop busy delays the timer sampled here.
    const eventLoopDelay = monitorEventLoopDelay({ resolution: 1 });
    eventLoopDelay.enable();
    for (const op of env.operations) {
      const result = await runOperation(env, op, {
        seed,
        runs,
        eventLoopDelay: { histogram: eventLoopDelay, recheckAboveMs: MAX_EVENT_LOOP_DELAY_MS },
      });
      results.push(result);
      console.log(
        `  ${op.operationId}: ${result.cases} cases, ${result.failures.length} failures, event loop blocked at most ${result.blocked?.ms.toFixed(1)} ms`,
      );
    }
    eventLoopDelay.disable();
    const health = await checkHealth(env);
    console.log(`\n${formatReport(results, 200)}\n`);
    console.log(
      `${results.reduce((s, r) => s + r.cases, 0)} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const problem of health) console.log(`✖ ${problem}`);
    if (health.length === 0) console.log('/healthz and /readyz answer 200 afterwards');
    const worst = results.reduce((a, b) => ((b.blocked?.ms ?? 0) > (a.blocked?.ms ?? 0) ? b : a));
    const worstMs = worst.blocked?.ms ?? 0;
    const tooSlow = worstMs > MAX_EVENT_LOOP_DELAY_MS;
    console.log(
      `${tooSlow ? '✖' : '✔'} longest event-loop delay during one request: ${worstMs.toFixed(1)} ms (at most ${MAX_EVENT_LOOP_DELAY_MS} ms), ${worst.operationId}: ${worst.blocked?.what}`,
    );
    const failed = results.some((r) => r.failures.length > 0) || health.length > 0 || tooSlow;
    console.log(failed ? '✖ fuzzing found failures' : '✔ no failures');
    console.log(`seed ${seed} (rerun: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz)`);
    status = failed ? 1 : 0;
  } finally {
    await env.close();
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
