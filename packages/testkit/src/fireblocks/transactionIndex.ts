import type { TransactionRecord } from './simulatorState.ts';

/** The queue a transaction waits in: one in flight per vault account and asset. */
function laneKey(tx: TransactionRecord): string {
  return `${tx.vaultId}:${tx.assetId}`;
}

/**
 * The workspace's transactions as the engine looks them up: by id and by externalTxId, and the ones not yet final
 * by vault account and asset, oldest first. A tick and a queue's order look at these only, however many transactions
 * have ended: nothing grows with the workspace's history.
 */
export class TransactionIndex {
  private readonly byId = new Map<string, TransactionRecord>();
  private readonly byExternalTxId = new Map<string, TransactionRecord>();
  private readonly lanes = new Map<string, Set<TransactionRecord>>();

  constructor(private readonly isFinal: (status: string) => boolean) {}

  /** Adds a transaction (a new one, or one of a loaded state, in creation order). */
  add(tx: TransactionRecord): void {
    this.byId.set(tx.id, tx);
    if (tx.externalTxId !== undefined) this.byExternalTxId.set(tx.externalTxId, tx);
    if (this.isFinal(tx.status)) return;
    const key = laneKey(tx);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = new Set();
      this.lanes.set(key, lane);
    }
    lane.add(tx);
  }

  /** `tx` reached a final status: out of its lane. Answers whether others of its lane wait. */
  finished(tx: TransactionRecord): boolean {
    const lane = this.lanes.get(laneKey(tx));
    lane?.delete(tx);
    if (lane?.size !== 0) return lane !== undefined;
    this.lanes.delete(laneKey(tx));
    return false;
  }

  find(id: string): TransactionRecord | undefined {
    return this.byId.get(id);
  }

  findByExternalTxId(externalTxId: string): TransactionRecord | undefined {
    return this.byExternalTxId.get(externalTxId);
  }

  /** Every transaction not yet final. */
  unfinished(): TransactionRecord[] {
    return [...this.lanes.values()].flatMap((lane) => [...lane]);
  }

  /**
   * No other transaction of `tx`'s vault account and asset in flight (`inFlight`), and none queued before it. The
   * lane is in creation order: a queued one before `tx` ends the look at once, so only the head of the queue reads
   * it all.
   */
  firstInLine(tx: TransactionRecord, inFlight: ReadonlySet<string>): boolean {
    let before = true;
    for (const other of this.lanes.get(laneKey(tx)) ?? []) {
      if (other === tx) before = false;
      else if (inFlight.has(other.status) || (before && other.status === 'QUEUED')) return false;
    }
    return true;
  }
}
