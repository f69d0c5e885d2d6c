import { type AbiParameter, decodeFunctionResult, type Hex, type PublicClient, size } from 'viem';
import { describeRevert, isRateLimited, isRevert, isUnreachable, shortError } from '#api/chain/chainErrors.ts';
import { type Chains, NetworkNotConfiguredError } from '#api/chain/chains.ts';
import type { NetworkId } from '#api/config/networks.ts';
import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { findContractFunction } from './abi.ts';
import { getContract, parsedAbi } from './contracts.ts';
import { encodeFunctionArgs } from './functionArgs.ts';

/** The gas a read may use (passed to eth_call): a block's worth on most networks. */
export const READ_GAS_LIMIT = 30_000_000n;
/** The most bytes of return data a read answers with. */
export const READ_MAX_RESULT_BYTES = 65_536;
/** How long a read may take, the block lookup and the call together. */
export const READ_TIMEOUT_MS = 10_000;

export interface CallRequest {
  contractId: number;
  formattedAbiFunction: string;
  functionArgs: string[];
  /** `latest` (the default), `safe`, `finalized`, or a block number in decimal. */
  blockTag?: string;
}

export interface CallResult {
  result: string[];
  blockNumber: number;
}

/**
 * Reads a view or pure function of a contract at one block: the tag is resolved to a block number first, and the
 * call runs at that number, so the answer says which block it was evaluated at. Arguments are converted as
 * execute-transaction converts them; outputs come back in the same encoding (see encodeOutput).
 */
export async function callContractFunction(
  deps: { db: Db; chains: Chains },
  projectId: number,
  body: CallRequest,
): Promise<CallResult> {
  const contract = await getContract(deps.db, projectId, body.contractId);
  const abi = await parsedAbi(deps.db, contract);
  const fn = findContractFunction({ ...contract, abi }, body.formattedAbiFunction, 'read');
  const { data } = encodeFunctionArgs(fn.item, body.functionArgs);
  const client = clientOf(deps.chains, contract.networkId);
  const { blockNumber, returned } = await withTimeout(contract.networkId, async () => {
    const blockNumber = await resolveBlock(client, contract.networkId, body.blockTag ?? 'latest');
    try {
      const answer = await client.call({ to: contract.address as Hex, data, blockNumber, gas: READ_GAS_LIMIT });
      return { blockNumber, returned: answer.data ?? '0x' };
    } catch (error) {
      if (isRevert(error)) throw new ApiError('CALL_REVERTED', { reason: describeRevert(error, abi) });
      if (/out ?of ?gas/i.test(shortError(error))) {
        throw new ApiError('CALL_REVERTED', { reason: `out of gas: a read may use ${READ_GAS_LIMIT} gas` });
      }
      throw unavailable(contract.networkId, error);
    }
  });
  if (size(returned) > READ_MAX_RESULT_BYTES) {
    throw new ApiError('CALL_RESULT_TOO_LARGE', { size: size(returned), limit: READ_MAX_RESULT_BYTES });
  }
  if (returned === '0x' && fn.item.outputs.length > 0) {
    throw new ApiError('CALL_REVERTED', {
      reason: `nothing was returned at block ${blockNumber}: contract ${contract.address} had no code there yet, or is not the one of this ABI`,
    });
  }
  let values: unknown;
  try {
    values = decodeFunctionResult({ abi: [fn.item], functionName: fn.item.name, data: returned });
  } catch (error) {
    throw new ApiError('CALL_REVERTED', {
      reason: `the answer does not decode as the outputs of ${fn.signature} (${shortError(error)}); is the contract at ${contract.address} the one of this ABI?`,
    });
  }
  const outputs = fn.item.outputs;
  const list = outputs.length === 1 ? [values] : ((values ?? []) as unknown[]);
  return { result: outputs.map((output, i) => encodeOutput(output, list[i])), blockNumber: Number(blockNumber) };
}

function clientOf(chains: Chains, networkId: NetworkId): PublicClient {
  try {
    return chains.client(networkId);
  } catch (error) {
    if (error instanceof NetworkNotConfiguredError) throw new ApiError('NETWORK_NOT_CONFIGURED', { networkId });
    throw error;
  }
}

function unavailable(networkId: NetworkId, error: unknown): ApiError {
  const reason = isRateLimited(error)
    ? 'the endpoint is rate limiting the platform'
    : isUnreachable(error)
      ? 'the endpoint is unreachable'
      : shortError(error);
  return new ApiError('CHAIN_UNAVAILABLE', { networkId, reason }, { cause: error });
}

/** The number of the block a tag names: a number above the head is the caller's 422. */
async function resolveBlock(client: PublicClient, networkId: NetworkId, tag: string): Promise<bigint> {
  try {
    if (/^\d+$/.test(tag)) {
      const wanted = BigInt(tag);
      const head = await client.getBlockNumber({ cacheTime: 0 });
      if (wanted > head) throw new ApiError('BLOCK_NOT_REACHED', { blockNumber: tag, networkId, head: String(head) });
      return wanted;
    }
    const block = await client.getBlock({ blockTag: tag as 'latest' | 'safe' | 'finalized' });
    if (block.number === null) throw new Error(`block ${tag} has no number`);
    return block.number;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw unavailable(networkId, error);
  }
}

/** The work, or CHAIN_UNAVAILABLE once READ_TIMEOUT_MS have passed (the request may still finish, unread). */
async function withTimeout<T>(networkId: NetworkId, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError('CHAIN_UNAVAILABLE', {
            networkId,
            reason: `the read did not finish within ${READ_TIMEOUT_MS / 1000} s`,
          }),
        ),
      READ_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One output in the encoding functionArgs takes: integers in decimal, addresses checksummed, bytes as hex, bools
 * as true/false, strings as they are; arrays and tuples as JSON text whose elements are encoded the same way (a
 * tuple as an object by component name when every component has one), so an answer can be sent back as an
 * argument.
 */
export function encodeOutput(param: AbiParameter, value: unknown): string {
  const json = toJson(param, value);
  return typeof json === 'string' ? json : JSON.stringify(json);
}

type Json = string | Json[] | { [key: string]: Json };

function toJson(param: AbiParameter, value: unknown): Json {
  const array = /^(.*)\[\d*\]$/.exec(param.type);
  if (array) return (value as unknown[]).map((item) => toJson({ ...param, type: array[1] as string }, item));
  if (param.type === 'tuple') {
    const components = (param as { components: readonly AbiParameter[] }).components;
    const byName = components.every((c) => c.name);
    const get = (c: AbiParameter, i: number) =>
      Array.isArray(value) ? value[i] : (value as Record<string, unknown>)[c.name as string];
    if (byName) return Object.fromEntries(components.map((c, i) => [c.name as string, toJson(c, get(c, i))]));
    return components.map((c, i) => toJson(c, get(c, i)));
  }
  return String(value);
}
