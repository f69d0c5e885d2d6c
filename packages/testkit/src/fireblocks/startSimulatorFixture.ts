import { Fireblocks } from '@fireblocks/ts-sdk';
import { type Address, createWalletClient, encodeFunctionData, type Hex, http, parseEther, publicActions } from 'viem';
import { type AnvilHandle, startAnvil } from '../anvil.ts';
import { freePort } from '../ports.ts';
import { ANVIL_DEPLOYER, compileCounter, deployCounter } from '../testContract.ts';
import { waitFor } from '../waitFor.ts';
import {
  type FireblocksSimulator,
  type FireblocksSimulatorOptions,
  startFireblocksSimulator,
} from './startFireblocksSimulator.ts';

/** The asset the simulator tests sign for: anvil standing in for Sepolia (chain 1337). */
export const TEST_ASSET = 'ETH_TEST5';

/**
 * A real anvil with the Counter deployed, a simulator for it, an API user and the official SDK pointed at it. With
 * `chain.blockTime` (seconds) anvil mines a block at that interval instead of one per transaction.
 */
export async function startSimulatorFixture(
  options: Partial<FireblocksSimulatorOptions> = {},
  chain: { blockTime?: number } = {},
) {
  const anvil: AnvilHandle = await startAnvil({ port: await freePort(), blockTime: chain.blockTime });
  try {
    const counter = await deployCounter(anvil.url);
    const sim: FireblocksSimulator = await startFireblocksSimulator({
      assets: { [TEST_ASSET]: { rpcUrl: anvil.url, chainId: 1337 } },
      ...options,
    });
    const user = sim.createApiUser();
    const fireblocks = new Fireblocks({ apiKey: user.apiKey, secretKey: user.privateKeyPem, basePath: sim.url });
    const chain = createWalletClient({
      account: ANVIL_DEPLOYER,
      chain: {
        id: 1337,
        name: 'anvil',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [anvil.url] } },
      },
      transport: http(anvil.url),
    }).extend(publicActions);

    /** A vault account with an ETH_TEST5 wallet funded with 10 ETH: its id and address. */
    async function fundedVault(name: string): Promise<{ id: string; address: Address }> {
      const vault = await fireblocks.vaults.createVaultAccount({
        createVaultAccountRequest: { name, hiddenOnUI: true },
      });
      const id = vault.data.id as string;
      const wallet = await fireblocks.vaults.createVaultAccountAsset({ vaultAccountId: id, assetId: TEST_ASSET });
      const address = wallet.data.address as Address;
      const hash = await chain.sendTransaction({ to: address, value: parseEther('10') });
      await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      return { id, address };
    }

    /** A CONTRACT_CALL request of `increment(amount)` on the Counter. */
    function incrementRequest(vaultId: string, amount: bigint, fields: Record<string, unknown> = {}) {
      const data: Hex = encodeFunctionData({ abi: compileCounter().abi, functionName: 'increment', args: [amount] });
      return {
        operation: 'CONTRACT_CALL' as const,
        assetId: TEST_ASSET,
        source: { type: 'VAULT_ACCOUNT' as const, id: vaultId },
        destination: { type: 'ONE_TIME_ADDRESS' as const, oneTimeAddress: { address: counter } },
        amount: '0',
        extraParameters: { contractCallData: data },
        ...fields,
      };
    }

    /** A TRANSFER request of `amount` (in ETH) to `to`; `operation` left out, as TRANSFER is its default. */
    function transferRequest(
      vaultId: string,
      to: Address,
      amount: string | number,
      fields: Record<string, unknown> = {},
    ) {
      return {
        assetId: TEST_ASSET,
        source: { type: 'VAULT_ACCOUNT' as const, id: vaultId },
        destination: { type: 'ONE_TIME_ADDRESS' as const, oneTimeAddress: { address: to } },
        amount,
        ...fields,
      };
    }

    /** Polls the simulator (through the SDK) until the transaction has one of `statuses`. */
    function untilStatus(txId: string, statuses: string[], timeoutMs = 15_000) {
      return waitFor(
        async () => {
          const tx = (await fireblocks.transactions.getTransaction({ txId })).data;
          return statuses.includes(tx.status as string) ? tx : undefined;
        },
        timeoutMs,
        `transaction ${txId} to be ${statuses.join(' or ')}`,
      );
    }

    async function count(): Promise<bigint> {
      return (await chain.readContract({
        address: counter,
        abi: compileCounter().abi,
        functionName: 'count',
      })) as bigint;
    }

    return {
      anvil,
      counter,
      sim,
      user,
      fireblocks,
      chain,
      fundedVault,
      incrementRequest,
      transferRequest,
      untilStatus,
      count,
      async stop() {
        await sim.stop();
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

export type SimulatorFixture = Awaited<ReturnType<typeof startSimulatorFixture>>;
