import {
  type Abi,
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  ExecutionRevertedError,
  type Hex,
  HttpRequestError,
  RawContractError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';
import { causes } from '#api/lib/causes.ts';
import { isRateLimitAnswer } from './rateLimitAnswers.ts';
import { RateLimitedError } from './rateLimits.ts';

/**
 * The endpoint did not answer (connection refused, timeout, socket closed), or refused for its rate limit (see
 * isRateLimited): worth retrying later, not the caller's fault.
 */
export function isUnreachable(error: unknown): boolean {
  if (isRateLimited(error)) return true;
  for (const e of causes(error)) {
    if (
      e instanceof HttpRequestError ||
      e instanceof TimeoutError ||
      e instanceof SocketClosedError ||
      e instanceof WebSocketRequestError
    )
      return true;
    const code = e.code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT') return true;
  }
  return false;
}

/**
 * The endpoint refused for its rate limit: a RateLimitedError of the HTTP transport (after its retries), an HTTP
 * 429, or a JSON-RPC error that means it (a WebSocket transport's, or a call of a batch answered so). The endpoint
 * is up; the caller should retry after `rateLimitRetryAfterMs(error)` rather than count it as a failed attempt.
 */
export function isRateLimited(error: unknown): boolean {
  for (const e of causes(error)) {
    if (typeof e.code === 'number') {
      // viem's errors keep the endpoint's own text in `details`; a JSON-RPC error object has it in `message`.
      const message = typeof e.details === 'string' ? e.details : e.message;
      if (isRateLimitAnswer({ code: e.code, message, data: e.data })) return true;
    }
    if (e instanceof RateLimitedError) return true;
    if ((e instanceof HttpRequestError || e instanceof RpcRequestError) && e.status === 429) return true;
  }
  return false;
}

/** How long a rate-limited endpoint asked to wait (milliseconds), when it said; see isRateLimited. */
export function rateLimitRetryAfterMs(error: unknown): number | undefined {
  for (const e of causes(error)) {
    if (e instanceof RateLimitedError) return e.retryAfterMs;
  }
  return undefined;
}

/** The node executed the call and it reverted. */
export function isRevert(error: unknown): boolean {
  for (const e of causes(error)) {
    if (
      e instanceof ContractFunctionRevertedError ||
      e instanceof ExecutionRevertedError ||
      e instanceof RawContractError ||
      /execution reverted|revert/i.test(typeof e.details === 'string' ? e.details : '')
    )
      return true;
  }
  return false;
}

/** The revert data carried somewhere in a viem error, if any. */
function revertData(error: unknown): Hex | undefined {
  for (const e of causes(error)) {
    const data = e.data;
    if (typeof data === 'string' && data.startsWith('0x') && data.length >= 10) return data as Hex;
    if (data && typeof data === 'object' && typeof (data as { data?: unknown }).data === 'string') {
      return (data as { data: Hex }).data;
    }
  }
  return undefined;
}

function formatArgs(args: readonly unknown[] | undefined): string {
  return (args ?? []).map((a) => (typeof a === 'bigint' ? a.toString() : JSON.stringify(a))).join(', ');
}

/**
 * A readable revert reason: the `Error(string)` message, a panic, or a custom error of the contract's ABI with
 * its arguments (`InsufficientBalance(10, 20)`).
 */
export function describeRevert(error: unknown, abi: Abi = []): string {
  for (const e of causes(error)) {
    if (e instanceof ContractFunctionRevertedError) {
      if (e.reason) return e.reason;
      if (e.data?.errorName) return `${e.data.errorName}(${formatArgs(e.data.args)})`;
      if (e.signature) return `custom error ${e.signature} (not in the contract's ABI)`;
    }
  }
  const data = revertData(error);
  if (data) {
    try {
      const decoded = decodeErrorResult({ abi, data });
      if (decoded.errorName === 'Error') return String(decoded.args?.[0] ?? '');
      if (decoded.errorName === 'Panic') return `panic ${formatArgs(decoded.args)}`;
      return `${decoded.errorName}(${formatArgs(decoded.args as readonly unknown[])})`;
    } catch {
      return `custom error ${data.slice(0, 10)} (not in the contract's ABI)`;
    }
  }
  if (error instanceof BaseError) {
    const details = error.details;
    if (details && /revert/i.test(details)) return details;
    return error.shortMessage;
  }
  return (error as Error).message ?? 'execution reverted';
}

/** What the node itself said (viem's `details`), else the short message: for errors a node words best. */
export function nodeAnswer(error: unknown): string {
  if (error instanceof BaseError && error.details) return error.details.split('\n')[0] as string;
  return shortError(error);
}

/** `text` with every RPC URL replaced by `<rpc>`: an endpoint's URL may hold a provider key. */
export const withoutRpcUrls = (text: string): string => text.replace(/\b(https?|wss?):\/\/\S+/g, '<rpc>');

/** One line for people: viem's short message and detail, without the docs and version trailer. */
export function shortError(error: unknown): string {
  if (error instanceof BaseError) {
    return [error.shortMessage, error.details].filter((p, i, all) => p && all.indexOf(p) === i).join(': ');
  }
  return (error as Error).message?.split('\n')[0] ?? String(error);
}
