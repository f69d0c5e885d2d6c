import { type AbiEvent, type Address, type Hex, numberToHex, type PublicClient, toEventSelector } from 'viem';
import { createLogDecoder, type LogArgs } from '#api/eventNotifier/abiEvent.ts';

/** One matching log, decoded. `blockTimestamp` is there when the provider includes it in eth_getLogs answers. */
export interface DecodedLog {
  blockNumber: bigint;
  blockHash: Hex;
  blockTimestamp: bigint | undefined;
  transactionHash: Hex;
  transactionIndex: number;
  logIndex: number;
  args: LogArgs;
}

interface RpcLog {
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  blockTimestamp?: Hex | null;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
  removed?: boolean;
}

/** The eth_getLogs filter of one event of one contract, and its decoder (built once per scan). */
export interface LogQuery {
  address: Address;
  topics: Hex[];
  decode: ReturnType<typeof createLogDecoder>;
}

export function logQuery(address: Address, event: AbiEvent): LogQuery {
  return { address, topics: [toEventSelector(event)], decode: createLogDecoder(event) };
}

/**
 * The logs of `from`..`to`, decoded; undefined when the node that answered does not have block `to` yet. With
 * `checkHead`, eth_blockNumber goes in the same JSON-RPC batch as eth_getLogs (they are asked in one tick), so that
 * both come from the same node: a load-balanced node behind the others answers a range past its head with the logs
 * it has, and such an answer must not be taken for the whole range. Refusals are thrown as viem throws them.
 */
export async function readRange(
  client: PublicClient,
  query: LogQuery,
  from: bigint,
  to: bigint,
  checkHead: boolean,
): Promise<DecodedLog[] | undefined> {
  const filter = {
    address: query.address,
    topics: query.topics,
    fromBlock: numberToHex(from),
    toBlock: numberToHex(to),
  };
  const getLogs = { method: 'eth_getLogs', params: [filter] } as never;
  let raw: RpcLog[];
  if (checkHead) {
    const [head, answer] = await Promise.all([
      client.request({ method: 'eth_blockNumber' } as never) as Promise<Hex>,
      client.request(getLogs) as Promise<RpcLog[]>,
    ]);
    if (BigInt(head) < to) return undefined;
    raw = answer;
  } else {
    raw = (await client.request(getLogs)) as RpcLog[];
  }
  const logs: DecodedLog[] = [];
  for (const log of raw) {
    if (log.removed) continue;
    const args = query.decode(log.topics, log.data);
    if (args === undefined) continue; // another event with the same selector but a different layout
    logs.push({
      blockNumber: BigInt(log.blockNumber),
      blockHash: log.blockHash,
      blockTimestamp: log.blockTimestamp ? BigInt(log.blockTimestamp) : undefined,
      transactionHash: log.transactionHash,
      transactionIndex: Number(log.transactionIndex),
      logIndex: Number(log.logIndex),
      args,
    });
  }
  return logs;
}
