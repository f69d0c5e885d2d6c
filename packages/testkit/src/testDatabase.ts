import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface PgTestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * The test process's one connection to the maintenance database, for creating and dropping its databases: a
 * PostgreSQL connection costs the server 5–20 ms of CPU, two a database otherwise. It lets the process exit while idle.
 */
let adminPool: pg.Pool | undefined;
function admin(adminUrl: string): pg.Pool {
  if (!adminPool) {
    adminPool = new pg.Pool({ connectionString: adminUrl, max: 1, idleTimeoutMillis: 0, allowExitOnIdle: true });
    // A connection the server closed while idle is left by the pool, which opens another for the next query.
    adminPool.on('error', () => {});
  }
  return adminPool;
}

/**
 * A fresh database copied from the run's template (`npm test` sets `TEST_PG_ADMIN_URL` and `TEST_PG_TEMPLATE`);
 * dropped by `drop()`, even while connections to it remain open. Callers open their own pool on `url`.
 */
export async function createPgTestDatabase(): Promise<PgTestDatabase> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (!adminUrl || !template) throw new Error('Run the tests with `npm test` (it starts PostgreSQL for them)');
  const name = `mountain_test_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl).query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      await admin(adminUrl).query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
