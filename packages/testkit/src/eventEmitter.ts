import {
  type Account,
  type Address,
  type Chain,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvilChain, readClient } from './lab/devAccounts.ts';
import { compileContract } from './solidity.ts';

/** A test contract that emits `Transfer` events: one per call, or many per transaction (for backfills). */
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract EventEmitter {
  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);
  function emitTransfer(address to, uint256 value) external { emit Transfer(msg.sender, to, value); }
  function emitMany(uint256 count, uint256 start) external {
    for (uint256 i = 0; i < count; ++i) emit Transfer(msg.sender, address(uint160(start + i + 1)), start + i);
  }
  function emitApproval(address spender, uint256 value) external { emit Approval(msg.sender, spender, value); }
}`;

export const TRANSFER_EVENT = 'event Transfer(address indexed from, address indexed to, uint256 value)';
export const EMITTER_ABI = parseAbi([
  TRANSFER_EVENT,
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'function emitTransfer(address to, uint256 value)',
  'function emitMany(uint256 count, uint256 start)',
  'function emitApproval(address spender, uint256 value)',
]);

/** anvil's first development account (a well-known key, funded on every anvil chain). */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** The contract's creation bytecode (see solidity.ts). */
export function emitterBytecode(): Hex {
  return compileContract('EventEmitter.sol', SOURCE, 'EventEmitter').bytecode;
}

/** The calldata of `emitTransfer(to, value)`: one Transfer event when mined. */
export function transferCall(to: Address, value: bigint): Hex {
  return encodeFunctionData({ abi: EMITTER_ABI, functionName: 'emitTransfer', args: [to, value] });
}

export interface Emitter {
  address: Address;
  publicClient: PublicClient;
  /** Emits one Transfer; resolves with its block once mined. */
  emitTransfer(value: bigint, to?: Address): Promise<{ blockNumber: bigint; transactionHash: Hex }>;
  /** Emits `count` Transfers in one transaction. */
  emitMany(count: number, start?: number): Promise<{ blockNumber: bigint; transactionHash: Hex }>;
  emitApproval(value: bigint): Promise<{ blockNumber: bigint; transactionHash: Hex }>;
  /** Mines `blocks` empty blocks. */
  mine(blocks: number): Promise<void>;
}

export async function deployEmitter(rpcUrl: string): Promise<Emitter> {
  const account = privateKeyToAccount(DEV_KEY);
  const transport = http(rpcUrl, { retryCount: 0 });
  const chain = anvilChain(rpcUrl);
  const wallet: WalletClient = createWalletClient<Transport, Chain | undefined, Account | undefined>({
    account,
    chain,
    transport,
  });
  // cacheTime 0: getBlockNumber() right after a receipt must be the head, not a number cached by an earlier poll.
  const publicClient = readClient(rpcUrl, { chain, transport, pollingInterval: 50, cacheTime: 0 });
  const hash = await wallet.deployContract({ abi: EMITTER_ABI, bytecode: emitterBytecode(), account, chain });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const address = receipt.contractAddress as Address;
  const send = async (functionName: string, args: unknown[], gas?: bigint) => {
    const tx = await wallet.writeContract({
      address,
      abi: EMITTER_ABI,
      functionName: functionName as 'emitMany',
      args: args as [bigint, bigint],
      account,
      chain,
      ...(gas ? { gas } : {}),
    });
    const mined = await publicClient.waitForTransactionReceipt({ hash: tx, pollingInterval: 50 });
    if (mined.status !== 'success') throw new Error(`${functionName} reverted (gas used ${mined.gasUsed})`);
    return { blockNumber: mined.blockNumber, transactionHash: tx };
  };
  return {
    address,
    publicClient,
    emitTransfer: (value, to = '0x00000000000000000000000000000000000000aa') => send('emitTransfer', [to, value]),
    emitMany: (count, start = 0) => send('emitMany', [BigInt(count), BigInt(start)], BigInt(100_000 + count * 4_000)),
    emitApproval: (value) => send('emitApproval', ['0x00000000000000000000000000000000000000bb', value]),
    async mine(blocks) {
      await publicClient.request({ method: 'anvil_mine' as never, params: [`0x${blocks.toString(16)}`] as never });
    },
  };
}
