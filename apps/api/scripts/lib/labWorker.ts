// A job worker in its own process, as `--role worker` runs, with transaction settings over the defaults (which the
// environment cannot all set): forked by labPlatform.ts, told its settings over IPC, answers 'ready'; stops on
// 'stop', and with its parent (the IPC channel closes).

import { createChains } from '#api/chain/chains.ts';
import type { NetworkId } from '#api/config/networks.ts';
import { createDb } from '#api/db/db.ts';
import type { JobLane } from '#api/jobs/lanes.ts';
import type { TransactionSettings } from '#api/transactions/settings.ts';
import { createAwsKmsCustody } from '#api/wallets/awsKms/awsKmsCustody.ts';
import type { AwsKmsSettings } from '#api/wallets/awsKms/settings.ts';
import { createFireblocksCustody } from '#api/wallets/fireblocks/fireblocksCustody.ts';
import type { FireblocksSettings } from '#api/wallets/fireblocks/settings.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';

export interface LabWorkerOptions {
  databaseUrl: string;
  masterKey: string;
  rpcUrls: Partial<Record<NetworkId, string>>;
  transactions: Partial<TransactionSettings>;
  /** Fireblocks custody against the lab's simulated workspace. */
  fireblocks?: FireblocksSettings;
  /** AWS KMS custody against the lab's simulated KMS. */
  awsKms?: AwsKmsSettings;
  /** Runners per lane over the defaults (WORKER_CONCURRENCY_<LANE>). */
  concurrency?: Partial<Record<JobLane, number>>;
}

process.once('message', async (message) => {
  const options = message as LabWorkerOptions;
  // A connection for each runner of the busiest lanes at once, as graphile-worker asks.
  const runners = Object.values(options.concurrency ?? {}).reduce((sum, n) => sum + (n ?? 0), 0);
  const db = createDb(options.databaseUrl, { max: Math.max(20, runners) });
  const masterKey = Buffer.from(options.masterKey, 'base64');
  const stop = new AbortController();
  const worker = createWorker({
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    deps: {
      db,
      chains: createChains(options.rpcUrls),
      signers: createSignerProvider(await loadWalletKeys(db, masterKey), {
        ...(options.fireblocks ? { fireblocks: createFireblocksCustody(options.fireblocks, [1337]) } : {}),
        ...(options.awsKms ? { awsKms: createAwsKmsCustody(options.awsKms) } : {}),
      }),
      masterKey,
      signal: stop.signal,
      transactions: options.transactions,
    },
  });
  await worker.start();
  const shutDown = async () => {
    stop.abort();
    await worker.stop().catch(() => {});
    await db.close().catch(() => {});
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void shutDown();
  });
  process.once('disconnect', () => void shutDown());
  process.send?.('ready');
});
