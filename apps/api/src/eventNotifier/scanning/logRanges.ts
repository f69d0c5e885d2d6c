import { setTimeout as sleep } from 'node:timers/promises';
import { type Hex, HttpRequestError, type PublicClient } from 'viem';
import { isRateLimited } from '#api/chain/chainErrors.ts';
import { NetworkNotConfiguredError } from '#api/chain/chains.ts';
import { causes } from '#api/lib/causes.ts';
import { readGetLogsRefusal } from './getLogsRefusals.ts';
import { RangeSizes } from './rangeSizes.ts';
import { type DecodedLog, type LogQuery, readRange } from './readRange.ts';

export type { DecodedLog } from './readRange.ts';

/** One block range fully read: every matching log of blocks `fromBlock`..`toBlock`, decoded. */
export interface LogChunk {
  fromBlock: bigint;
  toBlock: bigint;
  /** The hash of block `toBlock`, read with its logs (asked first, from the same node), for ranges ending above `checkpointAbove`. */
  toBlockHash?: Hex;
  logs: DecodedLog[];
}

/** Ranges read at once, once a width is known to work (before that, one). */
export const RANGES_IN_FLIGHT = 8;
/**
 * Ranges read and not yet taken, at most; and no new read starts while the logs waiting to be taken, and those the
 * reads in flight are expected to bring (as many as the last range read each), would pass LOGS_AHEAD, except one
 * range read ahead of the one being stored: a dense history is read a range or two ahead, a sparse one
 * RANGES_IN_FLIGHT at once.
 */
const RANGES_AHEAD = 8 * RANGES_IN_FLIGHT;
const LOGS_AHEAD = 10_000;
/** Ranges ending this close to the scan's head are checked against the answering node's head (see readRange). */
const LAGGING_NODE_BLOCKS = 256n;
/** A range answered by a node behind it is asked again this many times, then the reading ends there. */
const BEHIND_RETRIES = 3;

/** True when the RPC could not be reached at all (as opposed to refusing the request): splitting cannot help. */
export function isConnectionFailure(error: unknown): boolean {
  for (const e of causes(error)) {
    if (e instanceof HttpRequestError && e.status === undefined) return true;
    if (e instanceof NetworkNotConfiguredError) return true;
  }
  return false;
}

type Outcome = { kind: 'read'; chunk: LogChunk } | { kind: 'end' } | { kind: 'failed'; error: unknown };

/** A range of the scan: waiting for its turn to be read, being read, or read and waiting to be taken. */
interface Slot {
  from: bigint;
  to: bigint;
  outcome?: Promise<Outcome>;
  held?: number;
}

/**
 * Reads the logs a subscription watches (its events of its contracts, its filters) over `fromBlock`..`toBlock` with eth_getLogs, and yields them range
 * by range in block order, each range complete. Up to RANGES_IN_FLIGHT ranges are read at once (the transport paces
 * the requests within the network's budget, see requestBudget.ts); they may be answered out of order, but each is
 * yielded only after all the ranges before it. Logs are decoded with one decoder built for the event.
 *
 * Widths follow the provider's answers (RangeSizes): the first range is `maxRange` wide (or the endpoint's known
 * cap) and read alone; a refusal that names a working range or a cap is followed at once, any other one halves the
 * range; a success grows the next ranges back. A refused range is asked again in parts: no block is skipped.
 * Unreachable, or past its rate limit after the transport's retries: the error is thrown after the ranges before it.
 *
 * A range ending above `checkpointAbove` (the finalized block) comes with the hash of its last block, asked in the
 * same JSON-RPC batch as its logs, first: a reorg after that read changes the hash, which the next scan sees. A
 * range near `head` is asked with eth_blockNumber the same way. When the node that answered has no such block yet
 * (a load-balanced node behind the one that answered the head), the range is asked again, and after
 * BEHIND_RETRIES the reading ends there, uncommitted (see readRange).
 */
export async function* readLogRanges(
  client: PublicClient,
  options: {
    /** What to ask for and how to decode it (readRange.ts: logQuery). */
    query: LogQuery;
    fromBlock: bigint;
    toBlock: bigint;
    maxRange: number;
    checkpointAbove?: bigint;
    /** The head the scan started from: ranges near it are checked against the answering node's head. */
    head?: bigint;
  },
): AsyncGenerator<LogChunk> {
  const { query } = options;
  const sizes = new RangeSizes(client, options.maxRange);
  const checkAbove = options.head === undefined ? undefined : options.head - LAGGING_NODE_BLOCKS;
  const slots: Slot[] = [];
  let next = options.fromBlock;
  let reading = 0;
  let heldLogs = 0;
  let heldRanges = 0;
  /** The logs of the last range read: what each read in flight is expected to bring. */
  let lastLogs = 0;
  let stopped = false;
  /** A range failed or ended the reading: no new one starts (those before it go on). */
  let ended = false;
  // Reads start one per timer tick: the transport batches calls made in one tick, and eth_getLogs answers are
  // better alone (an answer of 10,000 logs is megabytes).
  let starts: Promise<unknown> = Promise.resolve();

  const read = async (slot: Slot): Promise<Outcome> => {
    let behind = 0;
    for (;;) {
      if (stopped) return { kind: 'end' };
      const { from, to } = slot;
      const checkpoint = options.checkpointAbove !== undefined && to > options.checkpointAbove;
      const nearHead = checkAbove !== undefined && to > checkAbove;
      let read: Awaited<ReturnType<typeof readRange>>;
      try {
        read = await readRange(client, query, from, to, checkpoint ? 'header' : nearHead ? 'head' : undefined);
      } catch (error) {
        // Unreachable or past its rate limit: a smaller range would fare no better.
        if (isConnectionFailure(error) || isRateLimited(error)) return { kind: 'failed', error };
        const refusal = readGetLogsRefusal(error);
        if (refusal?.kind !== 'behind') {
          if (to === from) return { kind: 'failed', error };
          split(slot, sizes.refused(from, to, refusal));
          pump();
          continue;
        }
      }
      if (read === undefined) {
        // The node that answered is behind `to`: its answer may lack logs. Ask again (another node may answer).
        if (++behind > BEHIND_RETRIES) return { kind: 'end' };
        await sleep(100 * behind);
        continue;
      }
      const { logs, hash: toBlockHash } = read;
      sizes.succeeded(to - from + 1n, logs.length);
      return { kind: 'read', chunk: { fromBlock: from, toBlock: to, ...(toBlockHash ? { toBlockHash } : {}), logs } };
    }
  };

  /** Shortens a slot to end at `end`; the rest becomes the slot after it, read in its turn. */
  const split = (slot: Slot, end: bigint) => {
    const rest: Slot = { from: end + 1n, to: slot.to };
    slot.to = end;
    slots.splice(slots.indexOf(slot) + 1, 0, rest);
  };

  const start = (slot: Slot) => {
    const width = slot.to - slot.from + 1n;
    if (width > sizes.target) split(slot, slot.from + sizes.target - 1n);
    reading++;
    const turn = starts.then(() => sleep(0));
    starts = turn;
    slot.outcome = turn
      .then(() => read(slot))
      .catch((error: unknown): Outcome => ({ kind: 'failed', error }))
      .then((outcome) => {
        reading--;
        if (outcome.kind !== 'read') ended = true;
        slot.held = outcome.kind === 'read' ? outcome.chunk.logs.length : 0;
        heldLogs += slot.held;
        heldRanges++;
        if (outcome.kind === 'read') lastLogs = slot.held;
        pump();
        return outcome;
      });
  };

  /** Starts what may start: waiting slots first (in order), then new ranges after the last one. */
  function pump() {
    if (stopped || ended) return;
    const inFlight = sizes.known ? RANGES_IN_FLIGHT : 1;
    // Past the logs' bound, still one range read ahead of the one being stored, as long as none waits.
    const room = () =>
      reading < inFlight && (heldLogs + (reading + 1) * lastLogs < LOGS_AHEAD || (reading === 0 && heldRanges === 0));
    for (const slot of slots) {
      if (!room()) return;
      if (!slot.outcome) start(slot);
    }
    while (room() && slots.length < RANGES_AHEAD && next <= options.toBlock) {
      const end = next + sizes.target - 1n;
      const slot: Slot = { from: next, to: end < options.toBlock ? end : options.toBlock };
      next = slot.to + 1n;
      slots.push(slot);
      start(slot);
    }
  }

  try {
    pump();
    for (;;) {
      const first = slots[0];
      if (!first) return;
      if (!first.outcome) start(first);
      const outcome = await (first.outcome as Promise<Outcome>);
      slots.shift();
      heldLogs -= first.held ?? 0;
      heldRanges--;
      if (outcome.kind === 'end') return;
      if (outcome.kind === 'failed') throw outcome.error;
      pump();
      yield outcome.chunk;
    }
  } finally {
    stopped = true;
    for (const slot of slots) slot.outcome?.catch(() => {});
  }
}
