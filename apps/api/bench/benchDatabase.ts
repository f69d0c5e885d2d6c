import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@mountain/testkit/ports.ts';
import { REPO_ROOT } from '#api/config/config.ts';
import { createDb } from '#api/db/db.ts';
import { startEmbeddedPostgres } from '#api/db/embeddedPostgres.ts';
import { migrate } from '#api/db/migrate.ts';
import { createProject } from '#api/projects/projects.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';

export type Stop = () => Promise<unknown> | unknown;

/**
 * A throwaway embedded PostgreSQL for one benchmark run, migrated, with one project. Its teardown is pushed onto
 * `stops` (run in reverse order): the pool closes, the server stops, then its folder is removed.
 */
export async function startBenchDatabase(name: string, stops: Stop[]) {
  const dir = path.join(REPO_ROOT, '.data', `bench-${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  const pg = await startEmbeddedPostgres(path.join(dir, 'postgres'), await freePort());
  stops.push(() => pg.stop());
  await pg.ensureDatabase('bench');
  const db = createDb(pg.urlFor('bench'), { max: 20 });
  stops.push(() => db.close());
  await migrate(db);
  const masterKey = randomBytes(32);
  const keys = await loadWalletKeys(db, masterKey);
  const { project, apiKey } = await createProject(db, keys, { projectName: 'Bench', keyMode: 'test' });
  return { db, masterKey, keys, project, apiKey };
}
