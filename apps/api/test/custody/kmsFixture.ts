import assert from 'node:assert/strict';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { type KmsSimulator, startKmsSimulator } from '@mountain/testkit/awsKms/startKmsSimulator.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { type Hex, type PublicClient, recoverTransactionAddress } from 'viem';
import type { TransactionSettings } from '#api/transactions/settings.ts';
import type { AwsKmsSettings } from '#api/wallets/awsKms/settings.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';

/** secp256k1's n / 2: an s above it is one real networks refuse (EIP-2); anvil 1.7.1 mines it anyway. */
const HALF_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n / 2n;

/**
 * A KMS simulator, anvil (or the test's chain) with the Counter, and the platform (app and worker) configured with
 * an access key of that simulator: what every AWS KMS test starts from.
 */
export async function startKmsPlatform(
  options: {
    /** A chain of the test's own (the chain lab's), instead of an automining anvil. */
    chainUrl?: string;
    settings?: Partial<AwsKmsSettings>;
    transactions?: Partial<TransactionSettings>;
  } = {},
) {
  const anvil: Pick<AnvilHandle, 'url' | 'stop'> = options.chainUrl
    ? { url: options.chainUrl, stop: async () => {} }
    : await startAnvil({ port: await freePort() });
  const sim: KmsSimulator = await startKmsSimulator();
  const user = sim.createUser();
  const settings: AwsKmsSettings = {
    region: sim.region,
    endpoint: sim.url,
    credentials: user,
    deployment: 'test',
    signConcurrency: 16,
    ...options.settings,
  };
  const h: Harness = await createHarness({
    rpcUrls: { 1337: anvil.url },
    worker: true,
    awsKms: settings,
    transactions: { monitorPollMs: 50, finalityPollMs: 200, ...options.transactions },
  });
  const chain = readClient(anvil.url);
  const counter = await deployCounter(anvil.url);
  return {
    anvil,
    sim,
    h,
    chain,
    counter,
    settings,
    user,
    /** A project on AWS KMS wallets with the Counter imported and its functions activated. */
    project: (functions?: string[], kmsKeyId?: string) =>
      counterProject(h, counter, functions, { walletType: 'aws-kms', ...(kmsKeyId ? { kmsKeyId } : {}) }),
    /**
     * Checks a mined transaction's signature as a real network would: s low (EIP-2), and the sender it recovers to
     * is the wallet.
     */
    async assertSignedBy(hash: Hex, wallet: string) {
      const tx = await chain.getTransaction({ hash });
      assert.ok(BigInt(tx.s) <= HALF_N, `transaction ${hash} has a high s`);
      const serialized = await rawOf(chain, hash);
      const recovered = await recoverTransactionAddress({ serializedTransaction: serialized as never });
      assert.equal(recovered.toLowerCase(), wallet.toLowerCase(), `transaction ${hash} recovers to the wallet`);
    },
    async stop() {
      await h.close();
      await sim.stop();
      await anvil.stop();
    },
  };
}

/** The signed bytes of a mined transaction, as the node has them. */
async function rawOf(chain: PublicClient, hash: Hex): Promise<Hex> {
  return (await chain.request({ method: 'eth_getRawTransactionByHash' as never, params: [hash] as never })) as Hex;
}

export type KmsPlatform = Awaited<ReturnType<typeof startKmsPlatform>>;
