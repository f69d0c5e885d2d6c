import { type AbiEvent, type Address, type Hex, numberToHex, type PublicClient, toEventSelector } from 'viem';
import { createLogDecoder, type DecodedArgs } from '#api/eventNotifier/abiEvent.ts';

/** One matching log, decoded. `blockTimestamp` is there when the provider includes it in eth_getLogs answers. */
export interface DecodedLog {
  blockNumber: bigint;
  blockHash: Hex;
  blockTimestamp: bigint | undefined;
  transactionHash: Hex;
  transactionIndex: number;
  logIndex: number;
  /** The arguments as stored (`decodedLog`). */
  args: DecodedArgs;
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

/** Logs decoded between two turns of the event loop. */
const YIELD_EVERY = 500;

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
 * The logs of `from`..`to`, decoded, and with `check: 'header'` the hash of block `to`; undefined when the node that
 * answered does not have block `to` yet. The check goes in the same JSON-RPC batch as eth_getLogs, first (they are
 * asked in one tick), so that both come from the same node: a load-balanced node behind the others answers a range
 * past its head with the logs it has, as if complete. `header` asks for block `to` itself (its hash is the range's
 * checkpoint), `head` only for eth_blockNumber. Refusals are thrown as viem throws them.
 */
export async function readRange(
  client: PublicClient,
  query: LogQuery,
  from: bigint,
  to: bigint,
  check: 'header' | 'head' | undefined,
): Promise<{ logs: DecodedLog[]; hash: Hex | undefined } | undefined> {
  const filter = {
    address: query.address,
    topics: query.topics,
    fromBlock: numberToHex(from),
    toBlock: numberToHex(to),
  };
  const getLogs = { method: 'eth_getLogs', params: [filter] } as never;
  let raw: RpcLog[];
  let hash: Hex | undefined;
  if (check) {
    const [answer, logs] = await Promise.all([
      check === 'header'
        ? (client.request({ method: 'eth_getBlockByNumber', params: [numberToHex(to), false] } as never) as Promise<{
            hash: Hex;
          } | null>)
        : (client.request({ method: 'eth_blockNumber' } as never) as Promise<Hex>),
      client.request(getLogs) as Promise<RpcLog[]>,
    ]);
    if (typeof answer === 'string' ? BigInt(answer) < to : !answer) return undefined;
    if (typeof answer === 'object' && answer) hash = answer.hash;
    raw = logs;
  } else {
    raw = (await client.request(getLogs)) as RpcLog[];
  }
  const logs: DecodedLog[] = [];
  for (const [i, log] of raw.entries()) {
    // A dense range holds tens of thousands of logs: let the process's other work (a transaction's sending, an
    // API request) in between, rather than hold it up for the whole decode.
    if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
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
  return { logs, hash };
}
