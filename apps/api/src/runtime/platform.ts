import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import type { Config } from '#api/config/config.ts';
import { checkMasterKey } from '#api/crypto/masterKeyCheck.ts';
import { startMetricsServer } from '#api/metrics/metricsRoute.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { remoteCustodians } from '#api/wallets/remoteCustodians.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import type { OpenedDatabase } from './database.ts';
import { surviveDatabaseLoss } from './databaseLoss.ts';
import { registerFaultInjection } from './faultInjection.ts';
import { createLogger, defaultWorkerLogger, type LogOptions } from './logger.ts';
import type { Shutdown } from './shutdown.ts';

export type Role = 'api' | 'worker' | 'all';

/**
 * Starts the API and/or the job worker of one process on an opened database; both stop with `shutdown`. Each role
 * first checks that its master keys are the database's (MasterKeyMismatchError otherwise, before anything runs).
 */
export async function startRoles(
  role: Role,
  config: Config,
  database: OpenedDatabase,
  shutdown: Shutdown,
  options: { logger?: LogOptions; onNotice?: (message: string) => void } = {},
): Promise<{ apiUrl?: string; metricsUrl?: string }> {
  const keyCheck = await checkMasterKey(database.db, config.masterKey);
  if (!keyCheck.rotated) {
    options.onNotice?.(
      `secrets are still sealed under master key ${keyCheck.checkKeyId}, not the current one: ` +
        'run mountain-admin rotate-master-key',
    );
  }
  const chains = createChains(config.rpcUrls, { maxRps: config.rpcMaxRps, maxLagBlocks: config.rpcMaxLagBlocks });
  const custodians = await remoteCustodians(config);
  let metricsUrl: string | undefined;
  if (config.metrics.port !== undefined) {
    const server = await startMetricsServer(
      { ...config.metrics, port: config.metrics.port },
      { db: database.db, chains, lowBalanceWei: config.lowBalanceWei },
    );
    shutdown.add('metrics', () => server.close());
    metricsUrl = server.url;
  }
  if (role === 'worker' || role === 'all') {
    const signers = createSignerProvider(await loadWalletKeys(database.db, config.masterKey), custodians);
    // The worker's lines have the API's shape and redactions: one configuration for both.
    const log = options.logger ? createLogger(options.logger) : defaultWorkerLogger();
    const worker = createWorker({
      concurrency: config.workerConcurrency,
      deps: {
        log,
        db: database.db,
        chains,
        signers,
        masterKey: config.masterKey,
        signal: shutdown.signal,
        eventNotifier: config.eventNotifier,
        delivery: config.delivery,
        // CONFIRMATIONS_<id> also decides when a transaction is final on a node without the `finalized` tag.
        transactions: {
          finalityDepth: config.eventNotifier.confirmations,
          maxInFlight: config.maxInFlight,
          maxFeePerGas: config.maxFeePerGas,
          waitForFundsMs: config.waitForFundsMs,
        },
      },
    });
    await worker.start();
    shutdown.add('worker', () => worker.stop());
    shutdown.add(
      'database loss handler',
      surviveDatabaseLoss((message) => log.error(message)),
    );
  }
  if (role === 'api' || role === 'all') {
    const app = buildApp(
      {
        db: database.db,
        chains,
        tokenSigningKey: config.tokenSigningKey,
        previousTokenSigningKeys: config.previousTokenSigningKeys,
        masterKey: config.masterKey,
        bodyLimit: config.bodyLimit,
        requestTimeoutMs: config.requestTimeoutMs,
        eventNotifier: config.eventNotifier,
        delivery: config.delivery,
        rateLimit: config.rateLimit,
        cors: config.cors,
        trustedProxies: config.trustedProxies,
        ...(config.metrics.token ? { metricsToken: config.metrics.token } : {}),
        lowBalanceWei: config.lowBalanceWei,
        maxWalletsPerProject: config.maxWalletsPerProject,
        custodians,
        consoleDir: config.consoleDir,
      },
      options.logger !== undefined ? { logger: options.logger } : {},
    );
    if (config.faultInjection) registerFaultInjection(app);
    await app.listen({ host: config.host, port: config.port });
    shutdown.add('api', () => app.close());
    return { apiUrl: `http://${config.host}:${config.port}`, ...(metricsUrl ? { metricsUrl } : {}) };
  }
  return metricsUrl ? { metricsUrl } : {};
}
