import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import {
  type FireblocksSimulator,
  type FireblocksSimulatorOptions,
  startFireblocksSimulator,
} from '@mountain/testkit/fireblocks/startFireblocksSimulator.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import type { PublicClient } from 'viem';
import type { FireblocksSettings } from '#api/wallets/fireblocks/settings.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';

/** The asset of the local chain in the simulated workspace. */
export const LOCAL_ASSET = 'ETH_LOCAL';

/**
 * Anvil with the Counter, a Fireblocks simulator signing for it, and the platform (app and worker) configured with
 * an API user of that simulator: what every Fireblocks test starts from.
 */
export async function startFireblocksPlatform(
  options: {
    simulator?: Partial<FireblocksSimulatorOptions>;
    settings?: Partial<FireblocksSettings>;
    anvilArgs?: string[];
    /** A chain of the test's own (the chain lab's), instead of an automining anvil. */
    chainUrl?: string;
    /** The simulator sends its webhooks to the API, listening on a port, with the webhook key configured. */
    webhooks?: boolean;
  } = {},
) {
  const anvil: Pick<AnvilHandle, 'url' | 'stop'> = options.chainUrl
    ? { url: options.chainUrl, stop: async () => {} }
    : await startAnvil({ port: await freePort(), ...(options.anvilArgs ? { args: options.anvilArgs } : {}) });
  const apiPort = await freePort();
  const sim: FireblocksSimulator = await startFireblocksSimulator({
    assets: { [LOCAL_ASSET]: { rpcUrl: anvil.url, chainId: 1337 } },
    ...(options.webhooks ? { webhookUrl: `http://127.0.0.1:${apiPort}/webhooks/fireblocks` } : {}),
    ...options.simulator,
  });
  const user = sim.createApiUser();
  const settings: FireblocksSettings = {
    apiKey: user.apiKey,
    secretKey: user.privateKeyPem,
    baseUrl: sim.url,
    assetIds: { 1337: LOCAL_ASSET },
    webhookPublicKey: options.webhooks ? sim.webhookPublicKeyPem : undefined,
    deployment: 'test',
    maxRps: 500,
    pollIntervalMs: 100,
    ...options.settings,
  };
  const h: Harness = await createHarness({
    rpcUrls: { 1337: anvil.url },
    worker: true,
    fireblocks: settings,
    transactions: { monitorPollMs: 50, finalityPollMs: 200 },
  });
  if (options.webhooks) await h.app.listen({ host: '127.0.0.1', port: apiPort });
  const chain = readClient(anvil.url);
  const counter = await deployCounter(anvil.url);
  return {
    anvil,
    sim,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    h,
    chain,
    counter,
    settings,
    /** A project on Fireblocks wallets with the Counter imported and its functions activated. */
    project: (functions?: string[]) => counterProject(h, counter, functions, { walletType: 'fireblocks' }),
    /** Every simulated transaction of a row (by its external id). */
    custodianTransactionsOf: (rowId: string) => sim.transactions().filter((t) => t.externalTxId === rowId),
    async stop() {
      await h.close();
      await sim.stop();
      await anvil.stop();
    },
  };
}

export type FireblocksPlatform = Awaited<ReturnType<typeof startFireblocksPlatform>>;
