import type { GetLogsRefusal } from './getLogsRefusals.ts';

/**
 * The range cap each endpoint has named (a client per network endpoint, for the life of the process): the next scan
 * on the same provider starts at that width instead of finding it again. A results cap is not kept: it depends on
 * how many logs each contract has, not on the provider alone.
 */
const endpointCaps = new WeakMap<object, bigint>();

/**
 * The widths of a scan's eth_getLogs ranges. New ranges are `target` wide, at most `cap` (the configured maximum, or
 * the endpoint's range cap once known). A refusal that names what works is followed at once (Alchemy's and Infura's
 * working range, a named range cap); any other refusal halves the range. Each success grows the target back: to
 * twice the width that worked, or, once the provider has named its results cap, to the width that would hold half
 * that many logs at the density just read (the cap itself past a range without logs), whichever is wider.
 */
export class RangeSizes {
  private max: bigint;
  /** The most logs one answer may hold, once a refusal has named it. */
  private maxResults: number | undefined;
  target: bigint;
  /** Whether a width is known to work: a range read, or the endpoint's cap known. Until then one range at a time. */
  known: boolean;

  constructor(
    private readonly endpoint: object,
    maxRange: number,
  ) {
    this.max = BigInt(maxRange);
    const learned = endpointCaps.get(endpoint);
    this.known = learned !== undefined;
    this.target = this.cap();
  }

  /** The widest range worth asking: the configured maximum, or the endpoint's cap when lower. */
  cap(): bigint {
    const learned = endpointCaps.get(this.endpoint);
    return learned !== undefined && learned < this.max ? learned : this.max;
  }

  /** A range `width` blocks wide was read, holding `logs` logs. */
  succeeded(width: bigint, logs: number): void {
    this.known = true;
    let grown = width * 2n;
    if (this.maxResults !== undefined) {
      const room = logs === 0 ? this.cap() : (width * BigInt(Math.floor(this.maxResults / 2))) / BigInt(logs);
      if (room > grown) grown = room;
    }
    if (grown > this.target) this.target = grown < this.cap() ? grown : this.cap();
  }

  /**
   * The range `from`..`to` was refused: the end of a shorter range from `from` to ask instead (below `to`), and the
   * target width of the ranges after it. `refusal` is what the endpoint said, if it said anything readable.
   */
  refused(from: bigint, to: bigint, refusal: GetLogsRefusal | undefined): bigint {
    const width = to - from + 1n;
    let next = width / 2n;
    if (refusal?.kind === 'range' && refusal.maxRange !== undefined) {
      const cap = BigInt(refusal.maxRange);
      const known = endpointCaps.get(this.endpoint);
      if (known === undefined || cap < known) endpointCaps.set(this.endpoint, cap);
      this.known = true;
      if (cap < width) next = cap;
    } else if (refusal?.kind === 'results') {
      if (refusal.maxResults !== undefined) this.maxResults = refusal.maxResults;
      if (refusal.workingTo !== undefined && refusal.workingTo >= from && refusal.workingTo < to) {
        next = refusal.workingTo - from + 1n;
      } else if (refusal.safeRange !== undefined && BigInt(refusal.safeRange) < width) {
        next = BigInt(refusal.safeRange);
      }
    }
    if (next < 1n) next = 1n;
    if (next < this.target) this.target = next;
    return from + next - 1n;
  }
}
