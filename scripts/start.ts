// npm start: the whole platform on this machine — embedded PostgreSQL, a local chain 1337 (anvil), the Public API
// with its workers, and the docs site — then a demo project whose API key and access token are printed.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { ConfigError, loadConfig, parsePort, REPO_ROOT } from '../apps/api/src/config/config.ts';
import { ensureDemoProject } from '../apps/api/src/projects/demo.ts';
import { openDatabase } from '../apps/api/src/runtime/database.ts';
import { loggerOptions } from '../apps/api/src/runtime/logger.ts';
import { startRoles } from '../apps/api/src/runtime/platform.ts';
import { createShutdown, exitOnSignals } from '../apps/api/src/runtime/shutdown.ts';
import { loadWalletKeys } from '../apps/api/src/wallets/walletKeys.ts';
import { serveBuild } from '../apps/docs/scripts/staticServer.ts';
import { ensureDocsBuilt } from './lib/docsBuild.ts';

const log = (line: string) => console.log(line);
const shutdown = createShutdown((message) => console.error(message));
exitOnSignals(shutdown);

async function start(): Promise<void> {
  const problems: string[] = [];
  const docsPort = parsePort('DOCS_PORT', process.env.DOCS_PORT ?? '3000', problems);
  const anvilPort = parsePort('ANVIL_PORT', process.env.ANVIL_PORT ?? '8545', problems);
  if (problems.length) throw new ConfigError(problems);
  const dataDir = path.resolve(REPO_ROOT, process.env.DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });

  let chainNote = `http://127.0.0.1:${anvilPort} (anvil, state kept in ${path.relative(REPO_ROOT, dataDir)}/anvil-state.json)`;
  if (process.env.RPC_URL_1337) {
    chainNote = `${process.env.RPC_URL_1337} (RPC_URL_1337)`;
  } else {
    const anvil = await startAnvil({ port: anvilPort, args: ['--state', path.join(dataDir, 'anvil-state.json')] });
    shutdown.add('anvil', () => anvil.stop());
    process.env.RPC_URL_1337 = anvil.url;
  }
  const config = loadConfig();
  const database = await openDatabase(config);
  shutdown.add('database', () => database.stop());

  const docsBuild = ensureDocsBuilt(path.join(REPO_ROOT, 'apps/docs'), log);
  const docs = await serveBuild(docsBuild, docsPort);
  shutdown.add('docs', () => docs.close());

  const { apiUrl } = await startRoles('all', config, database, shutdown, {
    logger: loggerOptions(process.env.LOG_LEVEL ?? 'warn'),
  });
  const demo = await ensureDemoProject(
    database.db,
    await loadWalletKeys(database.db, config.masterKey),
    config.tokenSigningKey,
  );
  const base = `${apiUrl}/public-api/v3`;
  log(`
Mountain is running.

  Docs            ${docs.origin}
  API reference   ${docs.origin}/api-reference
  Public API v3   ${base}
  Chain 1337      ${chainNote}
  PostgreSQL      ${config.databaseUrl ? 'DATABASE_URL' : `embedded, data in ${path.relative(REPO_ROOT, dataDir)}/postgres`}

Demo project ${demo.projectId} (a new key at every start; the previous one no longer works)
  API key         ${demo.apiKey}
  Access token    ${demo.accessToken}
                  (demo@mountain.dev, admin, expires ${demo.accessTokenExpiresAt.toISOString()})

Try it:
  curl -H "X-API-Key: ${demo.apiKey}" ${base}/project/get-project-detail

Press Ctrl-C to stop everything.`);
}

start().catch(async (error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  await shutdown.run('start failed');
  process.exit(1);
});
