import { type Hex, keccak256, type PublicClient } from 'viem';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import type { SignedRow } from './broadcastBatch.ts';
import { feesWithHeadroom } from './fees.ts';
import type { WalletNetwork } from './senders.ts';
import type { TransactionSettings } from './settings.ts';
import { signEip1559, walletRecord } from './signing.ts';

const bump = (value: bigint, percent: number) => (value * BigInt(100 + percent) + 99n) / 100n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Re-sends a transaction that was not mined in time: same nonce, same call, fees raised by `feeBumpPercent` (or to
 * the network's current fees, if higher), so it replaces the pending one. Every hash is kept: whichever is mined
 * gives the receipt.
 */
export async function resendWithHigherFee(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork,
  client: PublicClient,
  row: SignedRow & { feeBumps: number },
): Promise<void> {
  const account = deps.signers.signerFor(await walletRecord(deps.db, target.walletId));
  const current = await feesWithHeadroom(client);
  const maxPriorityFeePerGas = max(
    bump(BigInt(row.maxPriorityFeePerGas), settings.feeBumpPercent),
    current.maxPriorityFeePerGas,
  );
  const maxFeePerGas = max(
    max(bump(BigInt(row.maxFeePerGas), settings.feeBumpPercent), current.maxFeePerGas),
    maxPriorityFeePerGas,
  );
  const serialized = await signEip1559(account, target.networkId, { ...row, maxFeePerGas, maxPriorityFeePerGas });
  try {
    await client.sendRawTransaction({ serializedTransaction: serialized });
  } catch (error) {
    const text = `${(error as Error).message}`;
    // Mined meanwhile ("nonce too low"): the next pass finds the receipt. Anything else: try again next interval.
    if (!/already known/i.test(text)) return;
  }
  const hash: Hex = keccak256(serialized);
  await deps.db.query(
    `UPDATE transactions SET transaction_hash = $2::text, previous_hashes = previous_hashes || $2::text,
       gas_price = $3, max_priority_fee_per_gas = $4, fee_bumps = fee_bumps + 1, raw_transaction = $6,
       broadcasted_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = $1 AND status = 'broadcasted' AND fee_bumps = $5`,
    [row.id, hash, maxFeePerGas.toString(), maxPriorityFeePerGas.toString(), row.feeBumps, serialized],
  );
}
