import {
  type Address,
  decodeEventLog,
  encodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
  parseAbi,
} from 'viem';
import { devAccount, devWallet, readClient } from './lab/devAccounts.ts';
import { compileContract } from './solidity.ts';

// Many contracts emitting several events, from one transaction: a subscription that watches tens of contracts and
// three events, with filters on `to` and conditions on `value`, is tested on a few blocks instead of hundreds.
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Member {
  event Transfer(address indexed from, address indexed to, uint256 value);
  event Payment(address indexed from, address indexed to, uint256 value, string memo);
  event Refund(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);
  function fire(uint8 kind, address to, uint256 value) external {
    if (kind == 0) emit Transfer(msg.sender, to, value);
    else if (kind == 1) emit Payment(msg.sender, to, value, "invoice");
    else if (kind == 2) emit Refund(msg.sender, to, value);
    else emit Approval(msg.sender, to, value);
  }
}
contract Fleet {
  Member[] public members;
  function spawn(uint256 count) external { for (uint256 i = 0; i < count; ++i) members.push(new Member()); }
  function all() external view returns (Member[] memory) { return members; }
  function fire(uint256[] calldata who, uint8[] calldata kinds, address[] calldata to, uint256[] calldata values)
    external {
    for (uint256 i = 0; i < who.length; ++i) members[who[i]].fire(kinds[i], to[i], values[i]);
  }
}`;

/** Members created per transaction: within anvil's default block gas limit (30 million). */
const SPAWN_PER_TRANSACTION = 100;

/** The members' events, by `kind` (0 to 3). */
export const FLEET_EVENTS = [
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Payment(address indexed from, address indexed to, uint256 value, string memo)',
  'event Refund(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
] as const;

const FLEET_ABI = parseAbi([
  'function spawn(uint256 count)',
  'function all() view returns (address[])',
  'function fire(uint256[] who, uint8[] kinds, address[] to, uint256[] values)',
]);
const MEMBER_ABI = parseAbi(FLEET_EVENTS);

/** One event to fire: which member, which event (FLEET_EVENTS' index), to whom, what value. */
export interface Shot {
  member: number;
  kind: 0 | 1 | 2 | 3;
  to: Address;
  value: bigint;
}

/** A log of a member as the chain holds it, decoded. */
export interface FleetLog {
  address: Address;
  eventName: string;
  args: Record<string, unknown>;
  blockNumber: bigint;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: number;
}

export interface Fleet {
  /** The members' addresses, in spawn order. */
  members: Address[];
  /** The data of a transaction to the fleet that fires `shots` (for a reorg's replacement). */
  fireData(shots: readonly Shot[]): Hex;
  fleet: Address;
  /** Fires `shots` in one transaction; resolves with its block once mined. */
  fire(shots: readonly Shot[]): Promise<{ blockNumber: bigint; transactionHash: Hex }>;
  /** Sends that transaction and resolves with its hash at once (on a chain whose mining is paused). */
  send(shots: readonly Shot[]): Promise<Hex>;
  /** Every log of the members over the blocks, as the chain holds them now (its canonical logs). */
  logs(fromBlock: bigint, toBlock?: bigint): Promise<FleetLog[]>;
}

/** Deploys a fleet of `count` members from anvil's dev account `accountIndex` (default 5). */
export async function deployFleet(rpcUrl: string, count: number, accountIndex = 5): Promise<Fleet> {
  const { bytecode } = compileContract('Fleet.sol', SOURCE, 'Fleet');
  const account = devAccount(accountIndex);
  const wallet = devWallet(rpcUrl, account);
  const client: PublicClient = readClient(rpcUrl, { pollingInterval: 50, cacheTime: 0 });
  const mined = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`fleet transaction ${hash} reverted`);
    return receipt;
  };
  const deployed = await mined(await wallet.deployContract({ abi: FLEET_ABI, bytecode }));
  const fleet = deployed.contractAddress as Address;
  // In parts that fit a block's gas.
  for (let made = 0; made < count; made += SPAWN_PER_TRANSACTION) {
    const part = Math.min(SPAWN_PER_TRANSACTION, count - made);
    await mined(
      await wallet.sendTransaction({
        to: fleet,
        data: encodeFunctionData({ abi: FLEET_ABI, functionName: 'spawn', args: [BigInt(part)] }),
        gas: BigInt(200_000 + part * 250_000),
      }),
    );
  }
  const members = [
    ...((await client.readContract({ address: fleet, abi: FLEET_ABI, functionName: 'all' })) as Address[]),
  ];
  const fireData = (shots: readonly Shot[]) =>
    encodeFunctionData({
      abi: FLEET_ABI,
      functionName: 'fire',
      args: [
        shots.map((s) => BigInt(s.member)),
        shots.map((s) => s.kind),
        shots.map((s) => s.to),
        shots.map((s) => s.value),
      ],
    });
  const send = (shots: readonly Shot[]) =>
    wallet.sendTransaction({ to: fleet, data: fireData(shots), gas: BigInt(100_000 + shots.length * 30_000) });
  return {
    members,
    fleet,
    fireData,
    send,
    async fire(shots) {
      const hash = await send(shots);
      const receipt = await mined(hash);
      return { blockNumber: receipt.blockNumber, transactionHash: hash };
    },
    async logs(fromBlock, toBlock) {
      const raw = await client.getLogs({ address: members, fromBlock, ...(toBlock === undefined ? {} : { toBlock }) });
      return raw.map((log) => {
        const decoded = decodeEventLog({ abi: MEMBER_ABI, topics: log.topics, data: log.data });
        return {
          address: getAddress(log.address),
          eventName: decoded.eventName,
          args: decoded.args as Record<string, unknown>,
          blockNumber: log.blockNumber as bigint,
          blockHash: log.blockHash as Hex,
          transactionHash: log.transactionHash as Hex,
          logIndex: log.logIndex as number,
        };
      });
    },
  };
}
