import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, createWalletClient, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type CompiledContract, compileContract } from './solidity.ts';

/** Anvil's first development account (funded at genesis); deploys the test contract. */
export const ANVIL_DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

/** The test contract's ABI as the API takes it: human-readable strings. */
/** The Counter's event, one per increment. */
export const INCREMENTED_EVENT = 'event Incremented(address indexed by, uint256 amount, uint256 total)';

/** A create-subscription body for the Counter's Incremented events at `address`, on chain 1337 from block 0. */
export function incrementsSubscription(address: string, fields: Record<string, unknown> = {}) {
  return {
    subscriptionName: 'Increments',
    networkId: 1337,
    address,
    formattedAbiEvent: INCREMENTED_EVENT,
    initialBlockNumber: 0,
    scanInterval: 5,
    ...fields,
  };
}

export const COUNTER_FORMATTED_ABI = [
  'struct Point { int64 x; int64 y; }',
  'function count() view returns (uint256)',
  'function locked() view returns (bool)',
  'function lastRecord() view returns (bytes32)',
  'function claimed(uint256 id) view returns (bool)',
  'function increment(uint256 amount)',
  'function setLocked(bool value)',
  'function claim(uint256 id)',
  'function record(address who, bool flag, bytes32 tag, bytes blob, string note, uint256[] values, int64 delta, Point point)',
  'function deposit() payable',
  'error TooLarge(uint256 value, uint256 limit)',
  INCREMENTED_EVENT,
];

let counter: CompiledContract | undefined;

/** Compiles contracts/Counter.sol (beside this file), read once per process: see solidity.ts. */
export function compileCounter(): CompiledContract {
  counter ??= compileContract(
    'Counter.sol',
    readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'contracts/Counter.sol'), 'utf8'),
    'Counter',
  );
  return counter;
}

/** Deploys a fresh Counter on the anvil at `rpcUrl`; resolves to its address once mined. */
export async function deployCounter(rpcUrl: string): Promise<Address> {
  const { abi, bytecode } = compileCounter();
  const client = createWalletClient({ account: ANVIL_DEPLOYER, transport: http(rpcUrl) }).extend(publicActions);
  const chainId = await client.getChainId();
  const hash = await client.deployContract({
    abi,
    bytecode,
    chain: {
      id: chainId,
      name: 'anvil',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    },
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error('Counter deployment has no contract address');
  return receipt.contractAddress;
}
