import { parseArgs } from 'node:util';
import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import { ConfigError, loadConfig } from '#api/config/config.ts';
import { openDatabase } from '#api/runtime/database.ts';
import { loggerOptions } from '#api/runtime/logger.ts';
import { createShutdown, exitOnSignals } from '#api/runtime/shutdown.ts';
import { createTaskList } from '#api/worker/tasks.ts';
import { createWorker } from '#api/worker/worker.ts';

/**
 * Runs one process of the platform: `--role api` serves HTTP, `--role worker` runs background jobs,
 * `--role all` (the default) does both. Several api and worker processes may share one database.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' } } });
  const role = values.role as string;
  if (!['api', 'worker', 'all'].includes(role)) {
    console.error(`--role must be api, worker or all (got "${role}")`);
    process.exit(2);
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const shutdown = createShutdown((message) => console.error(message));
  exitOnSignals(shutdown);

  const database = await openDatabase(config);
  shutdown.add('database', () => database.stop());
  const chains = createChains(config.rpcUrls);

  if (role === 'worker' || role === 'all') {
    const worker = createWorker({ pool: database.db.pool, tasks: createTaskList() });
    await worker.start();
    shutdown.add('worker', () => worker.stop());
  }
  if (role === 'api' || role === 'all') {
    const app = buildApp(
      { db: database.db, chains, tokenSigningKey: config.tokenSigningKey, bodyLimit: config.bodyLimit },
      { logger: loggerOptions(config.logLevel) },
    );
    await app.listen({ host: config.host, port: config.port });
    shutdown.add('api', () => app.close());
  }
  console.error(`mountain ${role} running (pid ${process.pid})`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
