import type { JsonRpcError } from '../jsonRpc.ts';

/**
 * What nodes and hosted providers answer when they refuse, word for word, each with where it was seen. The provider
 * proxy answers with these and nothing else, so that code written against them meets the real texts.
 */

/** A refusal: the HTTP status it comes with when sent alone, and its JSON-RPC error. */
export interface Refusal {
  httpStatus: number;
  error: JsonRpcError;
}

const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;
/** 0xBDE5F8, as Infura writes block numbers. */
const upperHex = (n: bigint) => `0x${n.toString(16).toUpperCase()}`;
/** 2000 → "2K", as Alchemy writes its limits. */
const thousands = (n: number) => (n % 1000 === 0 ? `${n / 1000}K` : String(n));

/** Past the request rate. Both answer HTTP 429; the proxy adds a `Retry-After` header (seconds) to either. */
export const RATE_LIMITED = {
  /** https://www.alchemy.com/docs/reference/throughput ("Error response"). */
  alchemy: (): Refusal => ({
    httpStatus: 429,
    error: {
      code: 429,
      message:
        'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput',
    },
  }),
  /** https://docs.infura.io/api/networks/ethereum/how-to/avoid-rate-limiting ("project ID request rate exceeded"). */
  infura: (currentRps: number, allowedRps: number, backoffSeconds: number): Refusal => ({
    httpStatus: 429,
    error: {
      code: -32005,
      message: 'project ID request rate exceeded',
      data: {
        see: 'https://infura.io/docs/ethereum/jsonrpc/ratelimits',
        current_rps: currentRps,
        allowed_rps: allowedRps,
        backoff_seconds: backoffSeconds,
      },
    },
  }),
} as const;

/** eth_getLogs refused for its block range or for the number of logs it would return. */
export const GET_LOGS_REFUSED = {
  /**
   * Alchemy: one rule for both caps (a range up to 2K blocks with any number of logs, or any range up to 10K logs),
   * with a range that would work. Seen in https://github.com/ethers-io/ethers.js/issues/4703 (code −32602) and
   * https://gist.github.com/mrice32/ecd35a8114e32e3f28381e3e7763f136.
   */
  alchemy: (maxBlockRange: number, maxResults: number, suggested: [bigint, bigint]): Refusal => ({
    httpStatus: 200,
    error: {
      code: -32602,
      message: `Log response size exceeded. You can make eth_getLogs requests with up to a ${thousands(maxBlockRange)} block range and no limit on the response size, or you can request any block range with a cap of ${thousands(maxResults)} logs in the response. Based on your parameters and the response size limit, this block range should work: [${hex(suggested[0])}, ${hex(suggested[1])}]`,
    },
  }),
  /**
   * Infura, too many logs: https://docs.infura.io/reference/ethereum/json-rpc-methods/eth_getlogs/#constraints ("A
   * maximum of 10,000 results can be returned by a single query (code -32005)"); the full text with its suggested range
   * and `data` as seen in https://github.com/ethers-io/ethers.js/issues/4703.
   */
  infuraResults: (maxResults: number, suggested: [bigint, bigint]): Refusal => ({
    httpStatus: 200,
    error: {
      code: -32005,
      message: `query returned more than ${maxResults} results. Try with this block range [${upperHex(suggested[0])}, ${upperHex(suggested[1])}].`,
      data: { from: upperHex(suggested[0]), limit: maxResults, to: upperHex(suggested[1]) },
    },
  }),
  /** Infura, too wide a range (`range` is the number of blocks asked for): https://github.com/INFURA/infura/issues/237. */
  infuraRange: (range: bigint, maxBlockRange: number): Refusal => ({
    httpStatus: 200,
    error: { code: -32602, message: `range ${range} exceeds limit of ${maxBlockRange}` },
  }),
  /** QuickNode, too wide a range, with HTTP 413: https://github.com/eternalsafe/wallet/issues/57. */
  quicknode: (maxBlockRange: number): Refusal => ({
    httpStatus: 413,
    error: { code: -32614, message: `eth_getLogs is limited to a ${maxBlockRange.toLocaleString('en-US')} range` },
  }),
} as const;

/**
 * geth's answers to eth_sendRawTransaction, code −32000 (`errcodeDefault`, go-ethereum rpc/errors.go). Texts from
 * go-ethereum core/txpool/errors.go, core/txpool/legacypool/legacypool.go, core/error.go, and the wrapping in
 * core/txpool/validation.go (`ValidateTransactionWithState`) and core/state_transition.go (`preCheck`).
 */
export const TXPOOL_REFUSED = {
  /** core/txpool/errors.go ErrAlreadyKnown: the pool holds this very transaction. */
  alreadyKnown: (): Refusal => ({ httpStatus: 200, error: { code: -32000, message: 'already known' } }),
  /** core/error.go ErrNonceTooLow, as core/txpool/validation.go words it. */
  nonceTooLow: (next: number, nonce: number): Refusal => ({
    httpStatus: 200,
    error: { code: -32000, message: `nonce too low: next nonce ${next}, tx nonce ${nonce}` },
  }),
  /** core/error.go ErrFeeCapTooLow, as core/state_transition.go words it (`address` is checksummed). */
  feeCapTooLow: (address: string, maxFeePerGas: bigint, baseFee: bigint): Refusal => ({
    httpStatus: 200,
    error: {
      code: -32000,
      message: `max fee per gas less than block base fee: address ${address}, maxFeePerGas: ${maxFeePerGas}, baseFee: ${baseFee}`,
    },
  }),
  /** core/txpool/errors.go ErrReplaceUnderpriced: same nonce without the price bump (10% on both fee fields). */
  replacementUnderpriced: (): Refusal => ({
    httpStatus: 200,
    error: { code: -32000, message: 'replacement transaction underpriced' },
  }),
  /** core/txpool/legacypool/legacypool.go ErrTxPoolOverflow. */
  poolFull: (): Refusal => ({ httpStatus: 200, error: { code: -32000, message: 'txpool is full' } }),
} as const;
