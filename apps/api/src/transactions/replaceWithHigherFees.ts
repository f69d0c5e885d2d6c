import { type Address, type Hex, keccak256, type PublicClient } from 'viem';
import { shortError } from '#api/chain/chainErrors.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { transactionCancellations, transactionSpeedUps } from '#api/metrics/instruments.ts';
import type { SignedRow } from './broadcastBatch.ts';
import { cappedMessage, type NetworkFees, networkFees, replacementFees } from './fees.ts';
import { markCancelBlocked } from './lifecycle.ts';
import type { WalletNetwork } from './senders.ts';
import { feeCapOf, type TransactionSettings } from './settings.ts';
import { signEip1559, walletRecord } from './signing.ts';

/** A broadcast transaction waiting for its receipt. */
export interface WaitingRow extends SignedRow {
  feeBumps: number;
  errorMessage: string | null;
  /** A speed-up asked for (speed-up-transaction): its fees multiplied by this; null when none. */
  speedUp?: number | null;
  /** Being cancelled: what is re-signed at its nonce is the cancelling transfer, not its call. */
  cancelling?: boolean;
  /** The hashes of the cancelling transfers sent so far. */
  cancelHashes?: string[];
}

/** Gas of a plain transfer: the cancelling transfer's limit. */
const TRANSFER_GAS = 21_000n;

/** What goes out at a row's nonce: its own call, or, while it is cancelled, a 0-value transfer to the wallet itself. */
const callOf = (row: WaitingRow, wallet: Address) =>
  row.cancelling ? { ...row, to: wallet, data: undefined, value: 0n, gas: TRANSFER_GAS } : row;

/** A row whose cancel has not gone out yet: its cancelling transfer is due now. */
export const cancelUnsent = (row: WaitingRow) => row.cancelling === true && (row.cancelHashes ?? []).length === 0;

/** The bump of a row's fees, in percent: its speed-up's, else the settings'. */
const bumpPercentOf = (row: WaitingRow, settings: TransactionSettings) =>
  row.speedUp ? Math.round((row.speedUp - 1) * 100) : settings.feeBumpPercent;

/** Every "held back by the cap" message starts so. */
const CAPPED_PREFIX = 'Waiting for the base fee';

/**
 * Re-sends waiting transactions with higher fees on the same nonce and the same call, so that the new version
 * replaces the pooled one: both fee fields raised by `feeBumpPercent`, and to the network's current fees with
 * headroom if those are higher (after a base-fee spike, at once), never above the network's fee cap. A transaction
 * that no fee under the cap could get mined (the base fee is above the cap) is not re-sent: its `errorMessage`
 * says it waits for the base fee to fall. Replacements go out in nonce order, in one JSON-RPC batch. Every hash is
 * kept: whichever version is mined gives the receipt.
 */
export async function replaceWithHigherFees(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork,
  client: PublicClient,
  rows: readonly WaitingRow[],
  network: NetworkFees,
): Promise<void> {
  if (rows.length === 0) return;
  const cap = feeCapOf(settings, target.networkId);
  const planned = rows.map((row) => {
    const current = { maxFeePerGas: BigInt(row.maxFeePerGas), maxPriorityFeePerGas: BigInt(row.maxPriorityFeePerGas) };
    const fees = replacementFees(current, network, cap, bumpPercentOf(row, settings));
    // roomless: no replacement fits under the cap at all (not just under today's base fee).
    return { row, fees: fees && fees.maxFeePerGas >= network.baseFee ? fees : undefined, roomless: !fees };
  });
  const held = planned.filter((p) => !p.fees && BigInt(p.row.maxFeePerGas) < network.baseFee && !p.row.errorMessage);
  if (held.length > 0) {
    await deps.db.query(
      `UPDATE transactions SET error_message = $2, updated_at = clock_timestamp()
        WHERE id = ANY($1::uuid[]) AND status IN ('broadcasted', 'cancelling') AND error_message IS NULL`,
      [held.map((p) => p.row.id), cappedMessage(target.networkId, network.baseFee, cap)],
    );
  }
  // A speed-up no fee under the cap can give (10% more than now at least) is answered, not kept.
  const blocked = planned.filter((p) => !p.fees && p.row.speedUp);
  if (blocked.length > 0) {
    transactionSpeedUps.inc({ outcome: 'blocked' }, blocked.length);
    await deps.db.query(
      `UPDATE transactions SET speed_up_multiplier = NULL, error_message = $2, updated_at = clock_timestamp()
        WHERE id = ANY($1::uuid[]) AND status = 'broadcasted'`,
      [
        blocked.map((p) => p.row.id),
        `Not sped up: its fees cannot rise by the 10% a replacement needs under the fee cap MAX_FEE_PER_GAS_GWEI_${target.networkId}`,
      ],
    );
  }
  // A cancel whose transfer no fee under the cap can make replace the original: the original goes on.
  const uncancellable = planned.filter((p) => p.roomless && cancelUnsent(p.row)).map((p) => p.row.id);
  if (uncancellable.length > 0) {
    transactionCancellations.inc({ outcome: 'blocked' }, uncancellable.length);
    await markCancelBlocked(
      deps.db,
      uncancellable,
      `Not cancelled: a transfer replacing it must raise both its fees by 10%, above the fee cap MAX_FEE_PER_GAS_GWEI_${target.networkId}`,
    );
  }
  const replacing = planned.flatMap((p) => (p.fees ? [{ row: p.row, fees: p.fees }] : []));
  if (replacing.length === 0) return;
  const account = deps.signers.signerFor(await walletRecord(deps.db, target.walletId));
  const signed = await Promise.all(
    replacing.map(({ row, fees }) =>
      signEip1559(account, target.networkId, { ...callOf(row, account.address), ...fees }),
    ),
  );
  // Sent in the same tick, so in one batch the node takes in nonce order.
  const accepted = await Promise.all(
    signed.map((serialized) =>
      client.sendRawTransaction({ serializedTransaction: serialized }).then(
        () => true,
        // "already known": this very version is pooled. Anything else (mined meanwhile, "nonce too low"; the
        // base fee rose further): the next pass sees.
        (error: unknown) => /already known/i.test(shortError(error)),
      ),
    ),
  );
  const sent = replacing.flatMap((r, i) => (accepted[i] ? [{ ...r, serialized: signed[i] as Hex }] : []));
  if (sent.length === 0) return;
  const spedUp = sent.filter((s) => s.row.speedUp).length;
  if (spedUp > 0) transactionSpeedUps.inc({ outcome: 'sent' }, spedUp);
  const cancels = sent.filter((s) => cancelUnsent(s.row)).length;
  if (cancels > 0) transactionCancellations.inc({ outcome: 'sent' }, cancels);
  await deps.db.query(
    `UPDATE transactions t SET transaction_hash = v.hash,
       previous_hashes = CASE WHEN v.hash = ANY(t.previous_hashes) THEN t.previous_hashes ELSE t.previous_hashes || v.hash END,
       gas_price = v.max_fee, max_priority_fee_per_gas = v.tip, fee_bumps = t.fee_bumps + 1,
       cancel_hashes = CASE WHEN t.status = 'cancelling' THEN t.cancel_hashes || v.hash ELSE t.cancel_hashes END,
       raw_transaction = v.raw, error_message = NULL, broadcasted_at = clock_timestamp(), speed_up_multiplier = NULL,
       updated_at = clock_timestamp()
     FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::numeric[], $5::int[], $6::text[], $7::text[])
       AS v(id, hash, max_fee, tip, fee_bumps, raw, status)
     -- The status it was signed for: a row cancelled meanwhile does not take its call's new version as a cancel.
     WHERE t.id = v.id AND t.status = v.status AND t.fee_bumps = v.fee_bumps`,
    [
      sent.map((s) => s.row.id),
      sent.map((s) => keccak256(s.serialized)),
      sent.map((s) => s.fees.maxFeePerGas.toString()),
      sent.map((s) => s.fees.maxPriorityFeePerGas.toString()),
      sent.map((s) => s.row.feeBumps),
      sent.map((s) => s.serialized),
      sent.map((s) => (s.row.cancelling ? 'cancelling' : 'broadcasted')),
    ],
  );
}

/**
 * The monitor's look at the fees of the transactions still waiting for a receipt: those the base fee has risen
 * above are re-priced at once, those without a receipt after `resendAfterMs` get a higher tip (up to `maxFeeBumps`
 * times), and those held back by the cap that the base fee has fallen under again lose their message.
 */
export async function repriceWaiting(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork,
  client: PublicClient,
  waiting: readonly (WaitingRow & { sinceBroadcastMs: number })[],
): Promise<void> {
  if (waiting.length === 0) return;
  const network = await networkFees(client);
  const includable = (row: WaitingRow) => BigInt(row.maxFeePerGas) >= network.baseFee;
  const released = waiting.filter((r) => r.errorMessage?.startsWith(CAPPED_PREFIX) && includable(r));
  if (released.length > 0) {
    await deps.db.query(
      `UPDATE transactions SET error_message = NULL, updated_at = clock_timestamp()
        WHERE id = ANY($1::uuid[]) AND status IN ('broadcasted', 'cancelling')`,
      [released.map((r) => r.id)],
    );
  }
  const due = waiting.filter(
    (row) =>
      !includable(row) ||
      row.speedUp ||
      cancelUnsent(row) ||
      (row.sinceBroadcastMs > settings.resendAfterMs && row.feeBumps < settings.maxFeeBumps),
  );
  await replaceWithHigherFees(deps, settings, target, client, due, network);
}
