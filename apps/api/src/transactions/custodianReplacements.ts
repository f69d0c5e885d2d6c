import type { Hex, PublicClient } from 'viem';
import type { Db } from '#api/db/db.ts';
import { transactionCancellations, transactionSpeedUps } from '#api/metrics/instruments.ts';
import type { CustodianView, Submitter } from '#api/wallets/custody.ts';
import { networkFees, replacementFees } from './fees.ts';
import { markCancelBlocked, markCancelling } from './lifecycle.ts';
import type { WalletNetwork } from './senders.ts';
import { feeCapOf, type TransactionSettings } from './settings.ts';
import { walletRecord } from './signing.ts';

/** The custodian's name as a sentence writes it (Fireblocks). */
const custodianName = (submitter: Submitter) => submitter.provider.replace(/^./, (c) => c.toUpperCase());

/** A custodian row as the operations below need it (followCustodian selects it). */
export interface CustodianRow {
  id: string;
  custodyId: string;
  status: string;
  hash: Hex | null;
  /** Its cancel is due: asked for (cancel-transaction), or its deadline passed. */
  cancelDue: boolean;
  /** The cancelling transfers whose hash is known. */
  cancels: number;
  speedUp: number | null;
  /** The custodian's id of its replacement whose hash is not known yet. */
  replacementId: string | null;
  feeBumps: number;
}

/** The columns of a CustodianRow, for followCustodian's select. */
export const CUSTODIAN_ROW_COLUMNS = `id, custody_id AS "custodyId", status, transaction_hash AS hash,
  (cancel_requested_at IS NOT NULL OR expires_at <= clock_timestamp()) AS "cancelDue",
  cardinality(cancel_hashes) AS cancels, speed_up_multiplier::float8 AS "speedUp",
  custody_replacement_id AS "replacementId", fee_bumps AS "feeBumps"`;

/** A row with an operation to carry on (looked at sooner than the poll interval, at most once a second). */
export const CUSTODIAN_OPERATION_DUE = `(custody_replacement_id IS NOT NULL
  OR (status IN ('processing', 'broadcasted') AND (cancel_requested_at IS NOT NULL OR expires_at <= clock_timestamp()))
  OR (status = 'cancelling' AND cardinality(cancel_hashes) = 0)
  OR (status = 'broadcasted' AND speed_up_multiplier IS NOT NULL))`;

/**
 * Cancel and speed-up of a transaction its custodian signs and sends (DESIGN §6), one step per look at the row:
 * - a cancel while the custodian holds it unsigned (`processing`): the custodian's cancel; its status then says
 *   CANCELLED and the row is `cancelled` (never signed, no nonce used). Too late (it is being signed): the row is
 *   sent, and cancelled as a sent one;
 * - a cancel of a sent one: `cancelling`, and the custodian's drop (a 0-value transfer to the wallet itself at the
 *   nonce, priced by the custodian): its hash joins the cancelling transfers', and the chain decides as for any
 *   cancel; a drop the custodian refuses, or that fails before a hash, leaves the original to go on (cancel-blocked);
 * - a speed-up of a sent one: a boost, the custodian transaction of the same call at the same nonce with the fees
 *   raised as for any speed-up (never above the fee cap); its hash joins the row's;
 * - a replacement whose hash is not known yet is looked at until it has one, or fails.
 * One replacement at a time per row: a cancel or speed-up asked while one is under way waits for its hash.
 */
export async function advanceCustodianRow(
  db: Db,
  client: PublicClient,
  target: WalletNetwork,
  submitter: Submitter,
  settings: TransactionSettings,
  row: CustodianRow,
): Promise<void> {
  if (row.replacementId) return followReplacement(db, submitter, row, row.replacementId);
  if (row.cancelDue && row.status === 'processing') return cancelHeld(db, submitter, row);
  if ((row.cancelDue && row.status === 'broadcasted') || (row.status === 'cancelling' && row.cancels === 0)) {
    if (row.status === 'broadcasted') {
      const moved = await markCancelling(db, target, row.id);
      if (moved.moved === 0) return;
      if (moved.expired > 0) transactionCancellations.inc({ outcome: 'expired' });
    }
    return drop(db, submitter, row);
  }
  if (row.speedUp && row.status === 'broadcasted' && row.hash) {
    return boost(db, client, target, submitter, settings, row, row.hash, row.speedUp);
  }
}

/** The custodian's cancel of a row it holds unsigned; the status look that follows applies its outcome. */
async function cancelHeld(db: Db, submitter: Submitter, row: CustodianRow): Promise<void> {
  // A deadline's cancel is recorded as asked (its reason the deadline's) before the custodian is asked.
  const { rows } = await db.query<{ expired: boolean }>(
    `UPDATE transactions SET cancel_requested_at = clock_timestamp(), cancel_reason = 'Cancelled: not mined within '
         || round(extract(epoch FROM expires_at - created_at))::bigint || ' s (timeoutSeconds)'
      WHERE id = $1 AND cancel_requested_at IS NULL RETURNING true AS expired`,
    [row.id],
  );
  if (rows.length > 0) transactionCancellations.inc({ outcome: 'expired' });
  const answer = await submitter.cancel(row.custodyId, row.id);
  if (answer.kind === 'cancelled') transactionCancellations.inc({ outcome: 'unsent' });
}

/** The custodian's drop of a sent row now `cancelling`. */
async function drop(db: Db, submitter: Submitter, row: CustodianRow): Promise<void> {
  const answer = await submitter.replace({ kind: 'drop', custodyId: row.custodyId, rowId: row.id, attempt: 0 });
  if (answer.kind === 'retry') return;
  if (answer.kind === 'refused') {
    transactionCancellations.inc({ outcome: 'blocked' });
    return markCancelBlocked(
      db,
      [row.id],
      `Not cancelled: ${custodianName(submitter)} refused its drop: ${answer.message}`,
    );
  }
  await db.query(
    `UPDATE transactions SET custody_replacement_id = $2, updated_at = clock_timestamp()
      WHERE id = $1 AND status = 'cancelling' AND custody_replacement_id IS NULL`,
    [row.id, answer.id],
  );
}

/** A boost of a sent row asked to speed up: its call at its nonce, with the fees of a speed-up by `multiplier`. */
async function boost(
  db: Db,
  client: PublicClient,
  target: WalletNetwork,
  submitter: Submitter,
  settings: TransactionSettings,
  row: CustodianRow,
  hash: Hex,
  multiplier: number,
): Promise<void> {
  const { rows } = await db.query<{ to: string; data: Hex; value: string; gas: string; max: string; tip: string }>(
    `SELECT to_address AS "to", data, value::text AS value, gas_limit::text AS gas, gas_price::text AS max,
            max_priority_fee_per_gas::text AS tip
       FROM transactions WHERE id = $1`,
    [row.id],
  );
  const call = rows[0];
  if (!call) return;
  const current = { maxFeePerGas: BigInt(call.max), maxPriorityFeePerGas: BigInt(call.tip) };
  const cap = feeCapOf(settings, target.networkId);
  // Priced on the latest block, not the shared second-old look: the custodian does not re-price what it holds.
  const fees = replacementFees(current, await networkFees(client, 0), cap, Math.round((multiplier - 1) * 100));
  if (!fees) {
    transactionSpeedUps.inc({ outcome: 'blocked' });
    await endSpeedUp(
      db,
      row.id,
      `Not sped up: its fees cannot rise by the 10% a replacement needs under the fee cap MAX_FEE_PER_GAS_GWEI_${target.networkId}`,
    );
    return;
  }
  const wallet = await walletRecord(db, target.walletId);
  const answer = await submitter.replace({
    kind: 'boost',
    replacesHash: hash,
    attempt: row.feeBumps + 1,
    call: {
      rowId: row.id,
      custodyRef: wallet.custodyRef ?? '',
      networkId: target.networkId,
      to: call.to,
      data: call.data,
      value: BigInt(call.value),
      gasLimit: BigInt(call.gas),
      ...fees,
      keyAttempt: row.feeBumps + 1,
      inDoubt: false,
    },
  });
  if (answer.kind === 'retry') return;
  if (answer.kind === 'refused') {
    transactionSpeedUps.inc({ outcome: 'blocked' });
    return endSpeedUp(
      db,
      row.id,
      `Not sped up: ${custodianName(submitter)} refused its replacement: ${answer.message}`,
    );
  }
  transactionSpeedUps.inc({ outcome: 'sent' });
  await db.query(
    `UPDATE transactions SET custody_replacement_id = $2, speed_up_multiplier = NULL, fee_bumps = fee_bumps + 1,
       gas_price = $3, max_priority_fee_per_gas = $4, error_message = NULL, updated_at = clock_timestamp()
      WHERE id = $1 AND status = 'broadcasted' AND custody_replacement_id IS NULL`,
    [row.id, answer.id, fees.maxFeePerGas.toString(), fees.maxPriorityFeePerGas.toString()],
  );
}

/** A speed-up that cannot be made: answered in the row's errorMessage, not kept. */
async function endSpeedUp(db: Db, id: string, message: string): Promise<void> {
  await db.query(
    `UPDATE transactions SET speed_up_multiplier = NULL, error_message = $2, updated_at = clock_timestamp()
      WHERE id = $1 AND status = 'broadcasted'`,
    [id, message],
  );
}

/**
 * A replacement under way: once it has a hash, that hash is the row's newest (and, for a drop, a cancelling
 * transfer's), and the chain decides; failed before a hash, it ends (a drop's cancel is blocked, the original goes on).
 */
async function followReplacement(db: Db, submitter: Submitter, row: CustodianRow, replacementId: string) {
  let view: CustodianView;
  try {
    view = await submitter.status(replacementId);
  } catch {
    return;
  }
  if (view.hash) {
    await db.query(
      `UPDATE transactions SET transaction_hash = $3::text, custody_replacement_id = NULL, raw_transaction = NULL,
         previous_hashes = CASE WHEN $3::text = ANY(previous_hashes) THEN previous_hashes
                                ELSE previous_hashes || $3::text END,
         cancel_hashes = CASE WHEN status = 'cancelling' THEN cancel_hashes || $3::text ELSE cancel_hashes END,
         broadcasted_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE id = $1 AND custody_replacement_id = $2`,
      [row.id, replacementId, view.hash],
    );
    if (row.status === 'cancelling') transactionCancellations.inc({ outcome: 'sent' });
    return;
  }
  if (!view.failed) return;
  await db.query(
    `UPDATE transactions SET custody_replacement_id = NULL, updated_at = clock_timestamp()
      WHERE id = $1 AND custody_replacement_id = $2`,
    [row.id, replacementId],
  );
  if (row.status === 'cancelling') {
    transactionCancellations.inc({ outcome: 'blocked' });
    await markCancelBlocked(
      db,
      [row.id],
      `Not cancelled: its drop ended at ${custodianName(submitter)}: ${view.description}`,
    );
  } else {
    transactionSpeedUps.inc({ outcome: 'blocked' });
    await endSpeedUp(
      db,
      row.id,
      `Not sped up: its replacement ended at ${custodianName(submitter)}: ${view.description}`,
    );
  }
}
