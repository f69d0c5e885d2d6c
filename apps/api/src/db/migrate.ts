import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations } from 'graphile-worker';
import type { Db } from './db.ts';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 727_001;

// Not a numbered migration: written from the job definitions (jobs/jobsSql.ts), it may change with any release.
const GENERATED_FILES = ['jobs.generated.sql'];

/**
 * Applies the numbered SQL files of `migrations/` that this database has not seen yet, each in its own
 * transaction, under an advisory lock so that several processes starting at once migrate only once; then the job
 * queue's schema, and the generated files (the SQL functions that queue jobs, from their definitions), again on
 * every start, so that the database always queues jobs as this release defines them.
 */
export async function migrate(db: Db): Promise<string[]> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort();
  const client = await db.pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: string }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    for (const file of files) {
      if (done.has(file)) continue;
      await client.query('BEGIN');
      try {
        await client.query(readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'));
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(file);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  // The job queue's own schema: every process may enqueue jobs (in the same transaction as its writes). On a
  // connection of the pool's own (a pool of one connection is enough to migrate).
  await runMigrations({ pgPool: db.pool, logger: silentLogger });
  await applyGenerated(db);
  return applied;
}

/** Applies the generated files, each in its own transaction, under the migrations' lock. */
async function applyGenerated(db: Db): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    for (const file of GENERATED_FILES) {
      await client.query('BEGIN');
      try {
        await client.query(readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'));
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`${file} failed: ${(error as Error).message}`, { cause: error });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

const silentLogger = new Logger(() => () => {});
