import type { Hex } from 'viem';
import type { Db, Queryable } from '#api/db/db.ts';
import { transactionCancellations } from '#api/metrics/instruments.ts';
import { TRANSACTION_STATUSES } from '#api/schemas/entities.ts';
import type { CustodianView } from '#api/wallets/custody.ts';
import type { WalletNetwork } from './senders.ts';

import { type Cause, type TransactionStatus, transitionOf } from './transitionTable.ts';

/**
 * The transaction state machine: every status a transaction can move between, why, and the webhook event the
 * move writes. The product specification leaves the allowed transitions open (SPEC §4); this table is the decision,
 * and the only place that changes `transactions.status`: each function below is one statement that moves only the
 * rows whose status is an allowed `from` of its cause (any other row is left as it is), derived from this table.
 * The `transactions_webhook_event` trigger (migration 021) writes the event in the same database transaction as
 * the change (the outbox, DESIGN §7); `emits` is what it writes, held by a test against the real trigger.
 *
 * A row is born `created` (the column's default) by execute-transaction's INSERT, which writes no event.
 *
 * The row's other columns change outside this module, in statements that leave `status` alone and fire no status
 * event: the signed bytes kept before broadcast (broadcastBatch.ts), fee replacements and their messages
 * (replaceWithHigherFees.ts), the re-broadcast time (repairDropped.ts), the reasons waiting rows give
 * (sendTransactions.ts, prepareRound.ts, submitTransactions.ts, funds.ts), the estimate attempts (prepareRound.ts), the
 * custodian's key attempt (submitTransactions.ts), and the custodian look-up time and the nonce and bytes taken
 * from the node (followCustodian.ts). Finality is not a status but is an event (`transaction.finalized`): its
 * statement is here too (markFinal).
 */

/** A status as an SQL literal (a status of the table's CHECK only, so nothing else is ever spliced in). */
function literal(status: TransactionStatus): string {
  if (!TRANSACTION_STATUSES.includes(status)) throw new Error(`not a transaction status: ${status}`);
  return `'${status}'`;
}

/** `<column> IN (<the cause's from statuses>)`: the guard of a statement that moves rows for `cause`. */
function fromGuard(cause: Cause, column: string): string {
  const { from } = transitionOf(cause);
  if (from.length === 0) throw new Error(`cause ${cause} moves from no status`);
  return `${column} IN (${from.map(literal).join(', ')})`;
}

/** The cause's target status as an SQL literal. */
const to = (cause: Cause) => literal(transitionOf(cause).to);

// ── The sender ──────────────────────────────────────────────────────────────────────────────────────────────────

const NONCE_ALLOCATED = `UPDATE transactions t SET status = ${to('nonce-allocated')}, nonce = v.nonce, gas_limit = v.gas,
     gas_price = $4, max_priority_fee_per_gas = $5, send_attempts = 0, error_message = NULL,
     funds_short_since = NULL, raw_transaction = NULL, updated_at = clock_timestamp()
   FROM unnest($1::uuid[], $2::bigint[], $3::numeric[]) AS v(id, nonce, gas)
   WHERE t.id = v.id AND ${fromGuard('nonce-allocated', 't.status')}`;

/**
 * `created` → `processing` for a signer wallet's round (nonce-allocated), in the caller's database transaction: each
 * row's nonce and gas limit, the round's fees. Answers the moved rows, as `returning` (columns of `t`) lists them.
 */
export async function markNonceAllocated<R extends object>(
  tx: Queryable,
  rows: { id: string; nonce: number; gas: string }[],
  fees: { maxFeePerGas: string; maxPriorityFeePerGas: string },
  returning: string,
): Promise<R[]> {
  const result = await tx.query(`${NONCE_ALLOCATED} RETURNING ${returning}`, [
    rows.map((r) => r.id),
    rows.map((r) => r.nonce),
    rows.map((r) => r.gas),
    fees.maxFeePerGas,
    fees.maxPriorityFeePerGas,
  ]);
  return result.rows as R[];
}

const CUSTODIAN_CLAIMED = `UPDATE transactions t SET status = ${to('custodian-claimed')}, gas_limit = v.gas, gas_price = $3,
     max_priority_fee_per_gas = $4, custody_key_attempt = 1, send_attempts = 0, error_message = NULL,
     updated_at = clock_timestamp()
   FROM unnest($1::uuid[], $2::numeric[]) AS v(id, gas)
   WHERE t.id = v.id AND ${fromGuard('custodian-claimed', 't.status')}`;

/**
 * `created` → `processing` for a custodian's wallet (custodian-claimed): gas limits and fees fixed, the first key
 * attempt, before anything is submitted. Answers the moved rows, as `returning` (columns of `t`) lists them.
 */
export async function markCustodianClaimed<R extends object>(
  db: Pick<Db, 'query'>,
  rows: { id: string; gas: string }[],
  fees: { maxFeePerGas: string; maxPriorityFeePerGas: string },
  returning: string,
): Promise<R[]> {
  const result = await db.query(`${CUSTODIAN_CLAIMED} RETURNING ${returning}`, [
    rows.map((r) => r.id),
    rows.map((r) => r.gas),
    fees.maxFeePerGas,
    fees.maxPriorityFeePerGas,
  ]);
  return result.rows as R[];
}

const ESTIMATE_REVERTED = `UPDATE transactions SET status = ${to('estimate-reverted')}, error_message = $2,
     updated_at = clock_timestamp()
   WHERE id = $1 AND ${fromGuard('estimate-reverted', 'status')}`;

/** `created` → `reverted`: the call reverts when estimated just before sending (estimate-reverted). */
export async function markEstimateReverted(db: Pick<Db, 'query'>, id: string, message: string): Promise<void> {
  await db.query(ESTIMATE_REVERTED, [id, message]);
}

const ESTIMATE_FAILED = `UPDATE transactions SET status = ${to('estimate-failed')}, error_message = $2,
     updated_at = clock_timestamp()
   WHERE id = $1 AND ${fromGuard('estimate-failed', 'status')}`;

/** `created` → `broadcast-failed`: the node could not estimate its gas, after every retry (estimate-failed). */
export async function markEstimateFailed(db: Pick<Db, 'query'>, id: string, message: string): Promise<void> {
  await db.query(ESTIMATE_FAILED, [id, message]);
}

const FUNDS_TIMED_OUT = `UPDATE transactions SET status = ${to('funds-timeout')}, error_message = $2,
     updated_at = clock_timestamp()
   WHERE id = $1 AND ${fromGuard('funds-timeout', 'status')}`;

/** `created` → `broadcast-failed`: its wallet could not pay for it for WAIT_FOR_FUNDS_SECONDS (funds-timeout). */
export async function markFundsTimedOut(db: Pick<Db, 'query'>, id: string, message: string): Promise<void> {
  await db.query(FUNDS_TIMED_OUT, [id, message]);
}

const PREDECESSOR_FAILED = `UPDATE transactions t SET status = ${to('predecessor-failed')},
     error_message = 'Not sent: transaction ' || p.id || ', which it waits for (afterTransactionId), ended ' || p.status,
     updated_at = clock_timestamp()
   FROM transactions p
   WHERE t.system_wallet_id = $1 AND t.network_id = $2 AND ${fromGuard('predecessor-failed', 't.status')}
     AND t.after_transaction_id IS NOT NULL AND t.after_transaction_id = p.id
     AND p.status IN ('reverted', 'broadcast-failed', 'monitor-failed', 'cancelled')`;

/**
 * `created` → `broadcast-failed` for the wallet's rows whose predecessor (afterTransactionId) ended without
 * succeeding (predecessor-failed), and then for the rows that waited for those, down each chain. Answers how many.
 */
export async function failAfterPredecessors(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<number> {
  let failed = 0;
  for (;;) {
    const { rowCount } = await db.query(PREDECESSOR_FAILED, [target.walletId, target.networkId]);
    if (!rowCount) return failed;
    failed += rowCount;
  }
}

const WALLET_FAILED = (cause: 'rpc-unreachable' | 'no-sender') =>
  `UPDATE transactions SET status = ${to(cause)}, nonce = NULL, error_message = $3, updated_at = clock_timestamp()
   WHERE system_wallet_id = $1 AND network_id = $2 AND ${fromGuard(cause, 'status')}`;
const WALLET_FAILED_SQL = {
  'rpc-unreachable': WALLET_FAILED('rpc-unreachable'),
  'no-sender': WALLET_FAILED('no-sender'),
};

/**
 * Every waiting row of the wallet (`created`, `processing`) → `broadcast-failed` with `message`, their nonces
 * released: the RPC endpoint stayed unreachable past the retries (rpc-unreachable), or the wallet has no signer,
 * custodian or RPC endpoint (no-sender). Answers how many moved.
 */
export async function failWaitingOfWallet(
  tx: Queryable,
  target: WalletNetwork,
  cause: 'rpc-unreachable' | 'no-sender',
  message: string,
): Promise<number> {
  const { rowCount } = await tx.query(WALLET_FAILED_SQL[cause], [target.walletId, target.networkId, message]);
  return rowCount ?? 0;
}

const SENT = `UPDATE transactions t SET status = ${to('sent')}, transaction_hash = v.hash,
     broadcasted_at = clock_timestamp(),
     previous_hashes = CASE WHEN v.hash = ANY(t.previous_hashes) THEN t.previous_hashes
                            ELSE t.previous_hashes || v.hash END,
     raw_transaction = v.raw, error_message = NULL, updated_at = clock_timestamp()
   FROM unnest($1::uuid[], $2::text[], $3::text[]) AS v(id, hash, raw)
   WHERE t.id = v.id AND ${fromGuard('sent', 't.status')}`;

/** `processing` → `broadcasted` for the rows the node took (sent): each one's hash (kept among its hashes) and bytes. */
export async function markSent(tx: Queryable, rows: { id: string; hash: string; raw: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(SENT, [rows.map((r) => r.id), rows.map((r) => r.hash), rows.map((r) => r.raw)]);
}

const SEND_LATER = `UPDATE transactions SET status = ${to('send-later')}, nonce = NULL, updated_at = clock_timestamp()
   WHERE id = ANY($1::uuid[]) AND ${fromGuard('send-later', 'status')}`;

/**
 * `processing` → `created`, nonces released (send-later): another transaction took the nonce, or the node said
 * "not now" (a base fee above the fees just signed, a full pool).
 */
export async function markSendLater(tx: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(SEND_LATER, [ids]);
}

const NODE_REFUSED = `UPDATE transactions t SET status = ${to('node-refused')}, nonce = NULL, error_message = v.message,
     updated_at = clock_timestamp()
   FROM unnest($1::uuid[], $2::text[]) AS v(id, message)
   WHERE t.id = v.id AND ${fromGuard('node-refused', 't.status')}`;

/** `processing` → `broadcast-failed`, nonces released: the node refused them for good (node-refused). */
export async function markNodeRefused(tx: Queryable, rows: { id: string; message: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(NODE_REFUSED, [rows.map((r) => r.id), rows.map((r) => r.message)]);
}

// ── A custodian's wallet ────────────────────────────────────────────────────────────────────────────────────────

const CUSTODIAN_REFUSED = `UPDATE transactions SET status = ${to('custodian-refused')}, error_message = $2,
     updated_at = clock_timestamp()
   WHERE id = $1 AND ${fromGuard('custodian-refused', 'status')} AND custody_id IS NULL`;

/** `processing` → `broadcast-failed`: the custodian refused the row's create for good (custodian-refused). */
export async function markCustodianRefused(db: Pick<Db, 'query'>, id: string, message: string): Promise<void> {
  await db.query(CUSTODIAN_REFUSED, [id, message]);
}

// The moves a custodian's view may make, from the same status. A failure before any hash of a row whose cancel
// is due is the cancel the custodian was asked for (see custodianReplacements.ts).
const BROADCAST_BY_CUSTODIAN = fromGuard('custodian-broadcast', 't.status');
const FAILED_BY_CUSTODIAN = fromGuard('custodian-failed', 't.status');
const CANCELLED_BY_CUSTODIAN = `${fromGuard('custodian-cancelled', 't.status')} AND t.cancel_requested_at IS NOT NULL`;

const CUSTODIAN_VIEW = `WITH before AS (SELECT id, status, transaction_hash FROM transactions WHERE id = $1)
   UPDATE transactions t SET
     custody_id = coalesce(t.custody_id, $3),
     custody_status = CASE WHEN $9::bigint < t.custody_updated_ms THEN t.custody_status ELSE $4 END,
     custody_sub_status = CASE WHEN $9::bigint < t.custody_updated_ms THEN t.custody_sub_status ELSE $5 END,
     custody_updated_ms = greatest(t.custody_updated_ms, $9::bigint),
     custody_checked_at = clock_timestamp(),
     status = CASE WHEN ${BROADCAST_BY_CUSTODIAN} AND $6::text IS NOT NULL THEN ${to('custodian-broadcast')}
                   WHEN ${CANCELLED_BY_CUSTODIAN} AND $7 THEN ${to('custodian-cancelled')}
                   WHEN ${FAILED_BY_CUSTODIAN} AND $7 THEN ${to('custodian-failed')} ELSE t.status END,
     error_message = CASE WHEN ${BROADCAST_BY_CUSTODIAN} AND $6::text IS NOT NULL THEN NULL
                          WHEN ${CANCELLED_BY_CUSTODIAN} AND $7 THEN coalesce(t.cancel_reason, 'Cancelled') || ' (' || $8 || ')'
                          WHEN ${FAILED_BY_CUSTODIAN} AND $7 THEN $8 ELSE t.error_message END,
     -- A hash the row has had before (the custodian's original, after a replacement of it) is not its newest again.
     transaction_hash = CASE WHEN $6::text IS NOT NULL AND t.status IN ('processing', 'broadcasted')
                                  AND NOT ($6 = ANY (t.previous_hashes)) THEN $6
                             ELSE t.transaction_hash END,
     previous_hashes = CASE WHEN $6::text IS NOT NULL AND t.status IN ('processing', 'broadcasted')
                                 AND NOT ($6 = ANY (t.previous_hashes)) THEN array_append(t.previous_hashes, $6)
                            ELSE t.previous_hashes END,
     -- Bytes taken from the chain for an earlier hash are not this one's.
     raw_transaction = CASE WHEN $6::text IS NOT NULL AND t.status IN ('processing', 'broadcasted')
                                 AND NOT ($6 = ANY (t.previous_hashes)) THEN NULL ELSE t.raw_transaction END,
     broadcasted_at = CASE WHEN ${BROADCAST_BY_CUSTODIAN} AND $6::text IS NOT NULL THEN clock_timestamp()
                           ELSE t.broadcasted_at END,
     updated_at = clock_timestamp()
   FROM before
   WHERE t.id = before.id AND t.custody_provider = $2 AND (t.custody_id IS NULL OR t.custody_id = $3)
     AND t.status NOT IN ('created', 'broadcast-failed', 'monitor-failed')
   RETURNING t.status, t.system_wallet_id AS "walletId", t.network_id AS "networkId",
     (t.status <> before.status OR t.transaction_hash IS DISTINCT FROM before.transaction_hash) AS moved`;

/**
 * What a custodian says of a row's transaction, in one statement (see custodyStatus.ts, applyCustodianView): its
 * custody columns on every row the custodian still follows, and for a `processing` row, `broadcasted` under the
 * hash it reports (custodian-broadcast), or `broadcast-failed` when it failed before any hash (custodian-failed).
 */
export async function recordCustodianView(
  db: Pick<Db, 'query'>,
  rowId: string,
  provider: string,
  view: CustodianView,
): Promise<{ status: string; moved: boolean; walletId: number; networkId: number } | undefined> {
  const { rows } = await db.query<{ status: string; moved: boolean; walletId: number; networkId: number }>(
    CUSTODIAN_VIEW,
    [rowId, provider, view.id, view.status, view.subStatus, view.hash, view.failed, view.description, view.updatedMs],
    'apply-custodian-view',
  );
  return rows[0];
}

// ── The monitor ─────────────────────────────────────────────────────────────────────────────────────────────────

/** A mined original's message: none, or, when a cancel was asked, that the original was mined first. */
const LOST_RACE = `CASE WHEN cancel_requested_at IS NOT NULL
     THEN 'Not cancelled: it was mined before its cancellation (' || coalesce(cancel_reason, 'cancel-transaction') || ')' END`;

const MINED = `UPDATE transactions t SET status = ${to('mined')}, transaction_hash = v.hash, gas_used = v.gas_used,
     gas_price = v.gas_price, block_number = v.block_number, block_hash = v.block_hash,
     error_message = ${LOST_RACE}, updated_at = clock_timestamp()
   FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::numeric[], $5::bigint[], $6::text[])
     AS v(id, hash, gas_used, gas_price, block_number, block_hash)
   WHERE t.id = v.id AND ${fromGuard('mined', 't.status')}`;

/** A receipt, as the row keeps it. */
export interface ReceiptValues {
  transactionHash: Hex;
  gasUsed: string;
  gasPrice: string;
  blockNumber: string;
  blockHash: Hex;
}

/** `broadcasted` → `succeeded` for every row whose receipt says success (mined), with the receipt's fields. */
export async function markMined(db: Pick<Db, 'query'>, rows: { id: string; receipt: ReceiptValues }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(MINED, [
    rows.map((r) => r.id),
    rows.map((r) => r.receipt.transactionHash),
    rows.map((r) => r.receipt.gasUsed),
    rows.map((r) => r.receipt.gasPrice),
    rows.map((r) => r.receipt.blockNumber),
    rows.map((r) => r.receipt.blockHash),
  ]);
}

const MINED_REVERTED = `UPDATE transactions SET status = ${to('mined-reverted')}, transaction_hash = $2,
     gas_used = $3::numeric, gas_price = $4::numeric, block_number = $5, block_hash = $6,
     error_message = $7 || coalesce('. ' || ${LOST_RACE}, ''), updated_at = clock_timestamp()
   WHERE id = $1 AND ${fromGuard('mined-reverted', 'status')}`;

/** `broadcasted` → `reverted`: mined, and the call reverted on chain (mined-reverted), with `message` the reason. */
export async function markMinedReverted(
  db: Pick<Db, 'query'>,
  id: string,
  receipt: ReceiptValues,
  message: string,
): Promise<void> {
  await db.query(MINED_REVERTED, [
    id,
    receipt.transactionHash,
    receipt.gasUsed,
    receipt.gasPrice,
    receipt.blockNumber,
    receipt.blockHash,
    message,
  ]);
}

const MONITOR_FAILED = (cause: 'receipt-timeout' | 'custodian-failed-off-chain') =>
  `UPDATE transactions SET status = ${to(cause)}, error_message = $2, updated_at = clock_timestamp()
   WHERE id = $1 AND ${fromGuard(cause, 'status')}`;
const MONITOR_FAILED_SQL = {
  'receipt-timeout': MONITOR_FAILED('receipt-timeout'),
  'custodian-failed-off-chain': MONITOR_FAILED('custodian-failed-off-chain'),
};

/**
 * `broadcasted` → `monitor-failed` with `message`: no receipt in time (receipt-timeout), or the custodian failed it
 * and neither a block nor the node holds it (custodian-failed-off-chain).
 */
export async function markMonitorFailed(
  db: Pick<Db, 'query'>,
  id: string,
  cause: 'receipt-timeout' | 'custodian-failed-off-chain',
  message: string,
): Promise<void> {
  await db.query(MONITOR_FAILED_SQL[cause], [id, message]);
}

const NO_MONITOR = `UPDATE transactions SET status = ${to('no-monitor')}, error_message = $3, updated_at = clock_timestamp()
   WHERE system_wallet_id = $1 AND network_id = $2 AND ${fromGuard('no-monitor', 'status')}`;

/** Every `broadcasted` row of the wallet → `monitor-failed`: nothing can follow them (no-monitor). */
export async function failBroadcastOfWallet(db: Pick<Db, 'query'>, target: WalletNetwork, message: string) {
  await db.query(NO_MONITOR, [target.walletId, target.networkId, message]);
}

const REORG = `UPDATE transactions t SET
     status = CASE WHEN t.cancel_requested_at IS NULL THEN ${to('reorg')} ELSE ${to('reorg-cancelling')} END,
     block_number = NULL, block_hash = NULL, gas_used = NULL,
     finalized_at = NULL, error_message = NULL, gas_price = coalesce(v.fee_cap, t.gas_price),
     broadcasted_at = clock_timestamp(), updated_at = clock_timestamp()
   FROM unnest($1::uuid[], $2::numeric[]) AS v(id, fee_cap)
   WHERE t.id = v.id AND ((t.cancel_requested_at IS NULL AND ${fromGuard('reorg', 't.status')})
     OR (t.cancel_requested_at IS NOT NULL AND ${fromGuard('reorg-cancelling', 't.status')}))`;

/**
 * `succeeded` or `reverted` → `broadcasted`: their block left the canonical chain (reorg); a row whose cancel was
 * asked (`cancelled`, or an original mined before its cancel) → `cancelling` instead (reorg-cancelling), and whichever
 * of its versions a block holds next gives its outcome. Block fields and finality cleared; `gas_price` back to the
 * fee cap they were signed with, when known.
 */
export async function markReorged(
  db: Pick<Db, 'query'>,
  rows: { id: string; signedFeeCap: string | null }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(REORG, [rows.map((r) => r.id), rows.map((r) => r.signedFeeCap)]);
}

/** The statuses whose block may become final: those a receipt moves a row to. */
export const MINED_STATUSES = [
  transitionOf('mined').to,
  transitionOf('mined-reverted').to,
  transitionOf('cancel-mined').to,
];

const FINAL = `UPDATE transactions t SET finalized_at = clock_timestamp(), updated_at = clock_timestamp()
     FROM unnest($3::bigint[], $4::text[]) AS b(number, hash)
    WHERE t.system_wallet_id = $1 AND t.network_id = $2 AND t.status IN (${MINED_STATUSES.map(literal).join(', ')})
      AND t.finalized_at IS NULL AND t.block_number = b.number
      AND t.block_hash IS NOT DISTINCT FROM b.hash AND t.nonce < $5`;

/**
 * Not a status change, but an event (`transaction.finalized`): the wallet's mined rows in these blocks (by number and
 * hash), whose nonce the chain has mined, are final. Answers how many became so.
 */
export async function markFinal(
  db: Pick<Db, 'query'>,
  target: WalletNetwork,
  blocks: { blockNumber: number; blockHash: string | null }[],
  minedCount: number,
): Promise<number> {
  const { rowCount } = await db.query(FINAL, [
    target.walletId,
    target.networkId,
    blocks.map((b) => b.blockNumber),
    blocks.map((b) => b.blockHash),
    minedCount,
  ]);
  return rowCount ?? 0;
}

// ── Cancels (cancel-transaction, deadlines) ─────────────────────────────────────────────────────────────────────

/** A cancel is due: asked for, or the deadline passed (then its reason is the deadline's). */
const CANCEL_DUE = `(cancel_requested_at IS NOT NULL OR expires_at <= clock_timestamp())`;
const CANCEL_REASON = `coalesce(cancel_reason, 'Cancelled: not mined within '
     || round(extract(epoch FROM expires_at - created_at))::bigint || ' s (timeoutSeconds)')`;

const CANCEL_UNSENT = `UPDATE transactions SET status = ${to('cancel-unsent')}, nonce = NULL,
     cancel_requested_at = coalesce(cancel_requested_at, clock_timestamp()), cancel_reason = ${CANCEL_REASON},
     error_message = ${CANCEL_REASON}, updated_at = clock_timestamp()
   WHERE system_wallet_id = $1 AND network_id = $2 AND ${fromGuard('cancel-unsent', 'status')} AND ${CANCEL_DUE}
     AND ($3::uuid IS NULL OR id = $3)`;

/**
 * `created` → `cancelled` for the wallet's rows whose cancel is due (cancel-unsent): never sent, no nonce taken
 * (the next row takes the one it would have had). `id`: only that row. Answers how many.
 */
export async function cancelUnsent(db: Pick<Db, 'query'>, target: WalletNetwork, id?: string): Promise<CancelMoves> {
  return cancelMoves(
    await db.query(`${CANCEL_UNSENT} RETURNING ${BY_DEADLINE}`, [target.walletId, target.networkId, id ?? null]),
  );
}

const CANCEL_SENT = `UPDATE transactions SET status = ${to('cancel-sent')},
     cancel_requested_at = coalesce(cancel_requested_at, clock_timestamp()), cancel_reason = ${CANCEL_REASON},
     speed_up_multiplier = NULL, updated_at = clock_timestamp()
   WHERE system_wallet_id = $1 AND network_id = $2 AND ${fromGuard('cancel-sent', 'status')} AND ${CANCEL_DUE}
     AND ($3::uuid IS NULL OR id = $3)`;

/**
 * `broadcasted` → `cancelling` for the wallet's rows whose cancel is due (cancel-sent): the monitor then sends a
 * 0-value transfer to the wallet itself at each one's nonce. `id`: only that row. Answers how many.
 */
export async function markCancelling(db: Pick<Db, 'query'>, target: WalletNetwork, id?: string): Promise<CancelMoves> {
  return cancelMoves(
    await db.query(`${CANCEL_SENT} RETURNING ${BY_DEADLINE}`, [target.walletId, target.networkId, id ?? null]),
  );
}

/** How many rows a cancel statement moved, and how many of those for their deadline. */
export interface CancelMoves {
  moved: number;
  expired: number;
}
const BY_DEADLINE = `cancel_reason LIKE 'Cancelled: not mined within %' AS expired`;
const cancelMoves = ({ rows }: { rows: { expired: boolean }[] }): CancelMoves => ({
  moved: rows.length,
  expired: rows.filter((r) => r.expired).length,
});

const CANCEL_MINED = `UPDATE transactions t SET status = ${to('cancel-mined')}, transaction_hash = v.hash,
     gas_used = v.gas_used, gas_price = v.gas_price, block_number = v.block_number, block_hash = v.block_hash,
     error_message = coalesce(t.cancel_reason, 'Cancelled'), updated_at = clock_timestamp()
   FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::numeric[], $5::bigint[], $6::text[])
     AS v(id, hash, gas_used, gas_price, block_number, block_hash)
   WHERE t.id = v.id AND ${fromGuard('cancel-mined', 't.status')}`;

/** `cancelling` → `cancelled`: the receipt is its cancelling transfer's (cancel-mined), with that receipt's fields. */
export async function markCancelMined(
  db: Pick<Db, 'query'>,
  rows: { id: string; receipt: ReceiptValues }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(CANCEL_MINED, [
    rows.map((r) => r.id),
    rows.map((r) => r.receipt.transactionHash),
    rows.map((r) => r.receipt.gasUsed),
    rows.map((r) => r.receipt.gasPrice),
    rows.map((r) => r.receipt.blockNumber),
    rows.map((r) => r.receipt.blockHash),
  ]);
}

const CANCEL_BLOCKED = `UPDATE transactions SET status = ${to('cancel-blocked')}, cancel_requested_at = NULL,
     cancel_reason = NULL, expires_at = NULL, error_message = $2, updated_at = clock_timestamp()
   WHERE id = ANY($1::uuid[]) AND ${fromGuard('cancel-blocked', 'status')} AND cardinality(cancel_hashes) = 0`;

/**
 * `cancelling` → `broadcasted` with `message` (cancel-blocked): no transfer under the fee cap can replace it (a
 * replacement raises both fees by 10%), and none was sent. The cancel is dropped; the original goes on.
 */
export async function markCancelBlocked(db: Pick<Db, 'query'>, ids: string[], message: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(CANCEL_BLOCKED, [ids, message]);
}

/**
 * The wallet's cancels that are due (asked for, or past their deadline): rows not sent yet → `cancelled`, and with
 * `sent`, sent ones → `cancelling` (the monitor, which sends the cancelling transfers, moves those). `id`: that row only.
 */
export async function applyDueCancels(
  db: Pick<Db, 'query'>,
  target: WalletNetwork,
  options: { sent: boolean; id?: string },
): Promise<void> {
  const unsent = await cancelUnsent(db, target, options.id);
  const sent = options.sent ? await markCancelling(db, target, options.id) : { moved: 0, expired: 0 };
  if (unsent.moved > 0) transactionCancellations.inc({ outcome: 'unsent' }, unsent.moved);
  const expired = unsent.expired + sent.expired;
  if (expired > 0) transactionCancellations.inc({ outcome: 'expired' }, expired);
}
