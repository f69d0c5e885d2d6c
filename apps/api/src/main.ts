import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '#api/config/config.ts';
import { MasterKeyMismatchError } from '#api/crypto/masterKeyCheck.ts';
import { openDatabase } from '#api/runtime/database.ts';
import { loggerOptions } from '#api/runtime/logger.ts';
import { type Role, startRoles } from '#api/runtime/platform.ts';
import { createShutdown, exitOnSignals } from '#api/runtime/shutdown.ts';

/**
 * Runs one process of the platform: `--role api` serves HTTP, `--role worker` runs background jobs,
 * `--role all` (the default) does both. Several api and worker processes may share one database.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' } } });
  const role = values.role as Role;
  if (!['api', 'worker', 'all'].includes(role)) {
    console.error(`--role must be api, worker or all (got "${role}")`);
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
  const shutdown = createShutdown((message) => console.error(message));
  exitOnSignals(shutdown);
  const database = await openDatabase(config);
  shutdown.add('database', () => database.stop());
  let metricsUrl: string | undefined;
  try {
    ({ metricsUrl } = await startRoles(role, config, database, shutdown, {
      logger: loggerOptions(config.logLevel),
      onNotice: (message) => console.error(message),
    }));
  } catch (error) {
    if (!(error instanceof MasterKeyMismatchError)) throw error;
    // A key that is not the database's is a configuration error: its message, no stack, and nothing left running.
    console.error(error.message);
    await shutdown.run('wrong master key');
    process.exit(2);
  }
  console.error(`mountain ${role} running (pid ${process.pid})${metricsUrl ? `, metrics at ${metricsUrl}` : ''}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
