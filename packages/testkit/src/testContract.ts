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

/** The read tests' contract, contracts/Gauge.sol, as the API takes it. */
export const GAUGE_FORMATTED_ABI = [
  'struct Reading { uint64 at; int128 value; string label; }',
  'function level() view returns (uint256)',
  'function owner() view returns (address)',
  'function setLevel(uint256 value)',
  'function snapshot() view returns (uint256 current, address by, bool odd, bytes32 tag, bytes blob, string note)',
  'function reading(string label) view returns (Reading)',
  'function pairs(uint256 n) pure returns (uint256[2][] out, int8[] signs)',
  'function add(int256 a, int256 b) pure returns (int256)',
  'function checked(uint256 limit) view returns (uint256)',
  'function ratio(uint256 a, uint256 b) pure returns (uint256)',
  'function blob(uint256 size) pure returns (bytes)',
  'function spin() pure returns (uint256 n)',
  'error TooHigh(uint256 level, uint256 limit)',
];

/** The payment tests' contract, contracts/Till.sol, as the API takes it. */
export const TILL_FORMATTED_ABI = [
  'function pay(string memo) payable',
  'function payAtLeast(uint256 minimum) payable',
  'function note(string memo)',
  'function received() view returns (uint256)',
  'function closed() view returns (bool)',
  'function setClosed(bool value)',
  'receive() external payable',
  'event Paid(address indexed from, uint256 amount, string memo)',
];

const compiledContracts = new Map<string, CompiledContract>();

type TestContractName = 'Counter' | 'Gauge' | 'Till';

/** Compiles contracts/<name>.sol (beside this file), read once per process: see solidity.ts. */
function compileTestContract(name: TestContractName): CompiledContract {
  let known = compiledContracts.get(name);
  if (!known) {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), `contracts/${name}.sol`);
    known = compileContract(`${name}.sol`, readFileSync(file, 'utf8'), name);
    compiledContracts.set(name, known);
  }
  return known;
}

/** Compiles contracts/Counter.sol (beside this file), read once per process: see solidity.ts. */
export const compileCounter = (): CompiledContract => compileTestContract('Counter');

/** Deploys a fresh Counter on the anvil at `rpcUrl`; resolves to its address once mined. */
export const deployCounter = (rpcUrl: string): Promise<Address> => deployTestContract(rpcUrl, 'Counter');

/** Compiles contracts/Gauge.sol (the read tests' contract). */
export const compileGauge = (): CompiledContract => compileTestContract('Gauge');

/** Deploys a fresh Gauge on the anvil at `rpcUrl` (its owner the deployer); resolves to its address once mined. */
export const deployGauge = (rpcUrl: string): Promise<Address> => deployTestContract(rpcUrl, 'Gauge');

/** Compiles contracts/Till.sol (the payment tests' contract). */
export const compileTill = (): CompiledContract => compileTestContract('Till');

/** Deploys a fresh Till on the anvil at `rpcUrl`; resolves to its address once mined. */
export const deployTill = (rpcUrl: string): Promise<Address> => deployTestContract(rpcUrl, 'Till');

async function deployTestContract(rpcUrl: string, name: TestContractName): Promise<Address> {
  const { abi, bytecode } = compileTestContract(name);
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
  if (!receipt.contractAddress) throw new Error(`${name} deployment has no contract address`);
  return receipt.contractAddress;
}
