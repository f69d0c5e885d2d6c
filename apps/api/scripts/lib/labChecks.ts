// The checks after a run on the chain lab: wait until every transaction has settled, then the accepted executions
// against the canonical chain (the interval-mining benchmark and the chaos run), and table printing.
import type { Hex } from 'viem';
import type { Db } from '#api/db/db.ts';
import { type LabPlatform, type LabProject, until } from './labPlatform.ts';

export interface ChainTally {
  /** Accepted executions without a row. */
  missing: number;
  /** Rows still created, processing, broadcasted or cancelling, or mined (or cancelled on chain) and not finalized. */
  notTerminal: number;
  /** Accepted executions final (succeeded or reverted, finalized) under a hash the canonical chain holds. */
  final: number;
  /**
   * Accepted executions cancelled: never sent (no nonce, no hash), or finalized under the hash of a 0-value
   * transfer to the wallet itself the canonical chain holds at the row's nonce.
   */
  cancelled: number;
  /** Accepted native transfers (to the payee) final on chain. */
  transfers: number;
  /** Accepted executions neither final nor cancelled. */
  lost: number;
  /**
   * The wallet's transactions to the Counter, to its payee or to itself on chain that are no row's transaction (an
   * execution or a cancel sent twice).
   */
  duplicated: number;
  /** Nonces missing below the wallet's highest nonce on chain. */
  nonceGaps: number;
}

/** Reads the wallet's transactions from `fromBlock` to the head and compares them with the accepted executions. */
export async function chainTallyOf(
  platform: LabPlatform,
  project: LabProject,
  accepted: { id: string; value?: bigint }[],
  fromBlock: number,
): Promise<ChainTally> {
  const wallet = project.wallet.toLowerCase();
  const counter = platform.counter.toLowerCase();
  const head = Number(await platform.rpc<Hex>('eth_blockNumber'));
  const payee = project.payee?.address.toLowerCase();
  const onChain: { hash: string; to: string | null; value: bigint; nonce: number }[] = [];
  for (let n = fromBlock; n <= head; n++) {
    const block = await platform.rpc<{
      transactions: { hash: Hex; from: string; to: string | null; value: Hex; nonce: Hex }[];
    }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
    for (const tx of block?.transactions ?? []) {
      if (tx.from.toLowerCase() === wallet)
        onChain.push({
          hash: tx.hash,
          to: tx.to?.toLowerCase() ?? null,
          value: BigInt(tx.value),
          nonce: Number(tx.nonce),
        });
    }
  }
  const { rows } = await platform.db.query<{
    id: string;
    hash: string | null;
    nonce: number | null;
    final: boolean;
    cancelled: boolean;
    open: boolean;
  }>(
    `SELECT id, transaction_hash AS hash, nonce::int AS nonce,
            status IN ('succeeded', 'reverted') AND finalized_at IS NOT NULL AS final,
            status = 'cancelled' AND (transaction_hash IS NULL OR finalized_at IS NOT NULL) AS cancelled,
            ${OPEN} AS open
       FROM transactions WHERE project_id = $1`,
    [project.projectId],
  );
  const byHash = new Map(onChain.map((tx) => [tx.hash, tx]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const isFinal = (id: string) => {
    const row = byId.get(id);
    return row?.final === true && row.hash !== null && byHash.has(row.hash);
  };
  const cancelled = accepted.filter(({ id }) => {
    const row = byId.get(id);
    if (row?.cancelled !== true) return false;
    if (row.hash === null) return row.nonce === null;
    const tx = byHash.get(row.hash);
    return tx !== undefined && tx.to === wallet && tx.value === 0n && tx.nonce === row.nonce;
  }).length;
  const final = accepted.filter(({ id }) => isFinal(id)).length;
  const rowHashes = new Set(rows.map((r) => r.hash));
  const duplicated = onChain.filter(
    (tx) =>
      (tx.to === counter || tx.to === wallet || (payee !== undefined && tx.to === payee)) && !rowHashes.has(tx.hash),
  ).length;
  const nonces = new Set(onChain.map((tx) => tx.nonce));
  const highest = Math.max(-1, ...nonces);
  return {
    missing: accepted.filter(({ id }) => !byId.has(id)).length,
    notTerminal: rows.filter((r) => r.open).length,
    final,
    cancelled,
    transfers: accepted.filter((a) => a.value !== undefined && isFinal(a.id)).length,
    lost: accepted.length - final - cancelled,
    duplicated,
    nonceGaps: highest + 1 - nonces.size,
  };
}

/** Prints rows under a header, each column as wide as its widest cell, indented by two spaces. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')}`.trimEnd();
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

/**
 * Open: created, processing, broadcasted or cancelling, or mined (its own outcome, or cancelled by a transfer on
 * chain) and not finalized yet. A row cancelled before it was sent is terminal at once.
 */
const OPEN = `(status IN ('created', 'processing', 'broadcasted', 'cancelling')
  OR (status IN ('succeeded', 'reverted') AND finalized_at IS NULL)
  OR (status = 'cancelled' AND transaction_hash IS NOT NULL AND finalized_at IS NULL))`;

/** Settled: final (succeeded or reverted, finalized), or cancelled for good (never sent, or finalized). */
const SETTLED = `((status IN ('succeeded', 'reverted') AND finalized_at IS NOT NULL)
  OR (status = 'cancelled' AND (transaction_hash IS NULL OR finalized_at IS NOT NULL)))`;

/** Waits (bounded) until no transaction of the projects is open; answers whether none is. */
export function waitUntilSettled(db: Db, projectIds: number[], timeoutMs: number): Promise<boolean> {
  return until(async () => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions WHERE project_id = ANY($1) AND ${OPEN}`,
      [projectIds],
    );
    return rows[0]?.n === 0;
  }, timeoutMs);
}

/** The transactions that did not end final on chain (nor cancelled for good), grouped by status and error message, most frequent first. */
export async function unfinished(db: Db, projectIds: number[]): Promise<string[]> {
  const { rows } = await db.query<{
    status: string;
    finalized: boolean;
    error: string | null;
    custody: string | null;
    n: number;
  }>(
    `SELECT status, finalized_at IS NOT NULL AS finalized, error_message AS error,
            CASE WHEN custody_provider IS NOT NULL THEN custody_provider || ' ' || coalesce(custody_status, 'not submitted') END AS custody,
            count(*)::int AS n
       FROM transactions
      WHERE project_id = ANY($1) AND NOT ${SETTLED}
      GROUP BY 1, 2, 3, 4 ORDER BY n DESC LIMIT 10`,
    [projectIds],
  );
  return rows.map(
    (r) =>
      `${r.n} ${r.status}${r.finalized ? '' : ' (not finalized)'}${r.custody ? ` [${r.custody}]` : ''}${r.error ? `: ${shorten(r.error)}` : ''}`,
  );
}

/** One line of at most `max` characters. */
export function shorten(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
