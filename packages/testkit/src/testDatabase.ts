import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface PgTestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
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
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
