import { type AbiEvent, type Address, type Hex, numberToHex, type PublicClient, toEventSelector } from 'viem';
import { checksumAddress } from '#api/chain/checksumAddress.ts';
import { createLogDecoder, type DecodedArgs, eventSignature } from '#api/eventNotifier/abiEvent.ts';
import { eventsOf, type Watch } from '#api/eventNotifier/watch.ts';
import { conditionMatcher, topicMatcher, topicsOf } from './logMatchers.ts';

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
  /** The contract that emitted it, checksummed; null: the subscription's `address`. */
  address: Address | null;
  /** Which event it is; null: the subscription's `formattedAbiEvent`. */
  eventSignature: string | null;
}

interface RpcLog {
  address: Address;
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

/** How a log is decoded: by its event's decoder, and what its record says of the event. */
type Decoder = { decode: ReturnType<typeof createLogDecoder>; eventSignature: string | null };

/** The eth_getLogs filter of a subscription's watch, and its decoders (built once per scan). */
export interface LogQuery {
  /** The addresses of each eth_getLogs request for a range: one list, or several where a provider caps the list. */
  addressGroups: Address[][];
  topics: (Hex | Hex[] | null)[];
  /** The decoders of each selector (events with one selector and different indexed parameters have one each). */
  decoders: Map<Hex, Decoder[]>;
  /** The filters again, checked on each log (a node that ignored part of the query); undefined without filters. */
  matchesTopics: ((topics: readonly Hex[]) => boolean) | undefined;
  matchesConditions: ((args: DecodedArgs) => boolean) | undefined;
  /** The subscription's `address`, lower case: its logs' records say null. */
  primary: string;
  /** What each address a log came from is recorded as (null: the subscription's own), as the node wrote it. */
  addresses: Map<string, Address | null>;
  /** Logs the node answered, and logs recorded from them (what the filters pushed into the query saved). */
  counts: { returned: number; matched: number };
}

/** The query of a watch; `maxAddresses`: the most addresses one eth_getLogs request names. */
export function logQuery(watch: Watch, maxAddresses = Number.POSITIVE_INFINITY): LogQuery {
  const events = eventsOf(watch);
  const decoders = new Map<Hex, Decoder[]>();
  events.forEach((event, i) => {
    const selector = toEventSelector(event);
    const list = decoders.get(selector) ?? [];
    list.push({ decode: createLogDecoder(event), eventSignature: i === 0 ? null : eventSignature(event) });
    decoders.set(selector, list);
  });
  const addresses = [watch.address, ...watch.addresses];
  const addressGroups: Address[][] = [];
  for (let i = 0; i < addresses.length; i += maxAddresses) addressGroups.push(addresses.slice(i, i + maxAddresses));
  const topics = topicsOf(watch, events);
  return {
    addressGroups,
    topics,
    decoders,
    matchesTopics: Object.keys(watch.filters).length > 0 ? topicMatcher(topics) : undefined,
    matchesConditions: conditionMatcher(watch.conditions, events[0] as AbiEvent),
    primary: watch.address.toLowerCase(),
    addresses: new Map(),
    counts: { returned: 0, matched: 0 },
  };
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
  // One request per address group, asked in the same tick as the check (one JSON-RPC batch, one node).
  const getLogs = () =>
    query.addressGroups.map(
      (group) =>
        client.request({
          method: 'eth_getLogs',
          params: [
            {
              address: group.length === 1 ? group[0] : group,
              topics: query.topics,
              fromBlock: numberToHex(from),
              toBlock: numberToHex(to),
            },
          ],
        } as never) as Promise<RpcLog[]>,
    );
  let hash: Hex | undefined;
  const [answer, ...answers] = await Promise.all([
    check === 'header'
      ? (client.request({ method: 'eth_getBlockByNumber', params: [numberToHex(to), false] } as never) as Promise<{
          hash: Hex;
        } | null>)
      : check === 'head'
        ? (client.request({ method: 'eth_blockNumber' } as never) as Promise<Hex>)
        : undefined,
    ...getLogs(),
  ]);
  if (check) {
    if (typeof answer === 'string' ? BigInt(answer) < to : !answer) return undefined;
    if (typeof answer === 'object' && answer) hash = answer.hash;
  }
  const raw = answers.length === 1 ? (answers[0] as RpcLog[]) : mergeInChainOrder(answers);
  const logs: DecodedLog[] = [];
  const { decoders, matchesTopics, matchesConditions, primary, addresses } = query;
  for (const [i, log] of raw.entries()) {
    // A dense range holds tens of thousands of logs: let the process's other work (a transaction's sending, an
    // API request) in between, rather than hold it up for the whole decode.
    if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    if (log.removed) continue;
    if (matchesTopics && !matchesTopics(log.topics)) continue;
    let args: DecodedArgs | undefined;
    let eventSignature: string | null = null;
    // Another event with the same selector but a different layout is not one of these.
    for (const decoder of decoders.get(log.topics[0] as Hex) ?? []) {
      args = decoder.decode(log.topics, log.data);
      if (args !== undefined) {
        eventSignature = decoder.eventSignature;
        break;
      }
    }
    if (args === undefined || (matchesConditions && !matchesConditions(args))) continue;
    // null for the subscription's own address; the others checksummed once per scan.
    let address = addresses.get(log.address);
    if (address === undefined) {
      const lower = log.address.toLowerCase();
      address = lower === primary ? null : checksumAddress(lower.slice(2));
      addresses.set(log.address, address);
    }
    logs.push({
      blockNumber: BigInt(log.blockNumber),
      blockHash: log.blockHash,
      blockTimestamp: log.blockTimestamp ? BigInt(log.blockTimestamp) : undefined,
      transactionHash: log.transactionHash,
      transactionIndex: Number(log.transactionIndex),
      logIndex: Number(log.logIndex),
      args,
      address,
      eventSignature,
    });
  }
  query.counts.returned += raw.length;
  query.counts.matched += logs.length;
  return { logs, hash };
}

/** The answers of several address groups as one list, in chain order (each is in order already). */
function mergeInChainOrder(answers: RpcLog[][]): RpcLog[] {
  return answers
    .flat()
    .sort((a, b) =>
      a.blockNumber === b.blockNumber
        ? Number(a.logIndex) - Number(b.logIndex)
        : Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)),
    );
}
