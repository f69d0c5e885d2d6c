import { causes } from '#api/lib/causes.ts';

// What nodes and hosted providers answer when an eth_getLogs request asks too much, and what a scan learns from it.
// - Alchemy, over both of its caps: "Log response size exceeded. You can make eth_getLogs requests with up to a 2K
//   block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the
//   response. Based on your parameters and the response size limit, this block range should work: [0x…, 0x…]"
//   (https://github.com/ethers-io/ethers.js/issues/4703). Its free tier: "Under the Free tier plan, you can make
//   eth_getLogs requests with up to a 10 block range".
// - Infura: "query returned more than 10000 results. Try with this block range [0x…, 0x…]." (code -32005), and
//   "range 10001 exceeds limit of 10000" (https://docs.infura.io/reference/ethereum/json-rpc-methods/eth_getlogs).
// - QuickNode: "eth_getLogs is limited to a 10,000 range" (code -32614, HTTP 413).
// - geth and nodes built on it (BSC, publicnode): "exceed maximum block range: 50000"; reth: "query exceeds max
//   block range 100000", "query exceeds max results 20000, retry with the range 22382105-22382515" (also dRPC and
//   Erigon-based nodes); Frontier: "block range is too wide (maximum 10)"; others: "requested range too large",
//   "please limit your query to at most 1000 blocks".
// - A node behind the block asked for: geth "block range extends beyond current head block"; "block not yet imported".

/** What a refused eth_getLogs says about the range to ask instead. */
export type GetLogsRefusal =
  /** The provider's range cap, when it names it: no wider range is ever accepted. */
  | { kind: 'range'; maxRange: number | undefined }
  /**
   * Too many logs in the range: `workingTo`, when named, ends a range from the same start that the provider says
   * works; `safeRange`, when named, is a width accepted whatever the number of logs (Alchemy's 2K); `maxResults`
   * the most logs one answer may hold, when named.
   */
  | { kind: 'results'; workingTo: bigint | undefined; safeRange: number | undefined; maxResults: number | undefined }
  /** The answering node does not have the range's blocks yet (a load-balanced node behind the others). */
  | { kind: 'behind' };

const number = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const value = /^(\d+(?:[.,]\d{3})*)\s*k$/i.test(text)
    ? Number(text.slice(0, -1).replace(/[.,]/g, '')) * 1000
    : Number(text.replace(/[,_]/g, ''));
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
};

/** A block number as a refusal writes it: 0x-hex (either case) or decimal. */
const block = (text: string): bigint => BigInt(/^0x/i.test(text) ? `0x${text.slice(2)}` : text);

const RANGE_CAPS: RegExp[] = [
  /up to an? ([\d,]+k?) block range/i, // Alchemy's free tier (and its 2K, when no response size is mentioned)
  /eth_getLogs is limited to an? ([\d,]+k?) range/i, // QuickNode
  /range \d+ exceeds limit of (\d+)/i, // Infura
  /exceeds? max(?:imum)? block range:? (\d+)/i, // geth, reth, BSC
  /block range is too (?:wide|large) \(max(?:imum)?:? (\d+)\)/i, // Frontier
  /limit your (?:query|request) to at most ([\d,]+) blocks/i,
  /block range (?:limit|exceeds?|cannot exceed|must not exceed|is limited to|too large)\D{0,20}([\d,]+)/i,
];
const RANGE_WORDS = /block range|range too (?:large|wide)|range of blocks|requested too many blocks|range exceeds/i;
const RESULT_WORDS =
  /response size|more than \d+ results|max(?:imum)? results|too many (?:results|logs)|result set too large|response is too big/i;
const WORKING_RANGE =
  /(?:should work|try with this block range|retry with the range)\D{0,5}\[?\s*(0x[\da-f]+|\d+)\s*(?:,|-)\s*(0x[\da-f]+|\d+)/i;
const SAFE_RANGE = /up to an? ([\d,]+k?) block range and no limit on the response size/i;
const RESULTS_CAP = /cap of ([\d,]+k?) logs|more than ([\d,]+) results|max(?:imum)? results:? ([\d,]+)/i;
const BEHIND_WORDS =
  /beyond (?:the )?current head|not yet imported|after (?:the )?(?:latest|last) block|header not found/i;

/** Reads a refusal of eth_getLogs (an error thrown by viem, or anything carrying the node's message); undefined if it says nothing of the kind. */
export function readGetLogsRefusal(error: unknown): GetLogsRefusal | undefined {
  for (const text of messages(error)) {
    if (BEHIND_WORDS.test(text)) return { kind: 'behind' };
    if (RESULT_WORDS.test(text) || WORKING_RANGE.test(text)) {
      const working = WORKING_RANGE.exec(text);
      return {
        kind: 'results',
        workingTo: working ? block(working[2] as string) : undefined,
        safeRange: number(SAFE_RANGE.exec(text)?.[1]),
        maxResults: number(
          RESULTS_CAP.exec(text)
            ?.slice(1)
            .find((n) => n !== undefined),
        ),
      };
    }
    for (const pattern of RANGE_CAPS) {
      const match = pattern.exec(text);
      if (match) return { kind: 'range', maxRange: number(match[1]) };
    }
    if (RANGE_WORDS.test(text)) return { kind: 'range', maxRange: undefined };
  }
  return undefined;
}

/** The endpoint's own words along the error's causes: viem keeps them in `details`, JSON-RPC errors in `message`. */
function* messages(error: unknown): Generator<string> {
  for (const e of causes(error)) {
    if (typeof e.details === 'string') yield e.details;
    if (typeof e.message === 'string') yield e.message;
  }
}
