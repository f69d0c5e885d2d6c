import type { Address, Hex } from 'viem';
import { describeRevert, isRevert, isUnreachable, nodeAnswer } from '#api/chain/chainErrors.ts';
import { inRpcBatches } from '#api/chain/rpcBatches.ts';
import { contractAbiForErrors } from '#api/contracts/contracts.ts';
import type { Db } from '#api/db/db.ts';
import { cappedMessage, type Fees, feesWithHeadroom, networkFees } from './fees.ts';
import { type Funds, isInsufficientFunds, reservedInFlight, waitForFunds } from './funds.ts';
import { applyDueCancels, failAfterPredecessors, markEstimateFailed, markEstimateReverted } from './lifecycle.ts';
import type { WalletChain, WalletNetwork } from './senders.ts';
import { DEFAULT_MAX_IN_FLIGHT, feeCapOf, type TransactionSettings } from './settings.ts';

export interface Prepared {
  ready: { id: string; gas: bigint }[];
  fees: Fees;
  /** Some could not be estimated now: the sender comes back after a pause. */
  retryLater: boolean;
  /** The wallet cannot pay for the next row: it waits for funds, and the sender looks again after `fundsPollMs`. */
  fundsShort: boolean;
}

/** Gas-estimate batches in flight at once. */
const ESTIMATE_BATCHES_IN_FLIGHT = 4;

/** The network's base fee is above the fee cap: nothing sent now could be mined. */
export const PRICED_OUT = Symbol('priced out');

/** What a round is prepared with: one (wallet, network), its address, the node and its remedies (walletChain). */
export interface RoundContext extends WalletChain {
  db: Db;
  settings: TransactionSettings;
  target: WalletNetwork;
  address: Address;
}

/**
 * The next `created` transactions (at most `room`) with their gas estimates; those whose estimate fails end here
 * (reverted or broadcast-failed). undefined when nothing is waiting; PRICED_OUT when the base fee is above the
 * network's fee cap (the waiting transactions then say so in their `errorMessage`).
 */
export async function prepareRound(
  sender: RoundContext,
  room: number,
): Promise<Prepared | typeof PRICED_OUT | undefined> {
  const { db, target, settings, client, devChain, address } = sender;
  if (room <= 0) return undefined;
  // Cancels asked for and deadlines passed first: a cancelled row is never sent, and the rows that wait for it fail.
  await applyDueCancels(db, target, { sent: false });
  await failAfterPredecessors(db, target);
  // A row that waits for another (afterTransactionId) is taken once that one has succeeded, not before.
  const { rows: waiting } = await db.query<{ id: string; to: Address; data: Hex; value: string; contractId: number }>(
    `SELECT t.id, t.to_address AS "to", t.data, t.value::text AS value, c.id AS "contractId"
     FROM transactions t
     JOIN contract_activated_functions f ON f.id = t.contract_activated_function_id
     JOIN contracts c ON c.id = f.contract_id
     WHERE t.system_wallet_id = $1 AND t.network_id = $2 AND t.status = 'created'
       AND (t.after_transaction_id IS NULL
            OR EXISTS (SELECT 1 FROM transactions p WHERE p.id = t.after_transaction_id AND p.status = 'succeeded'))
     ORDER BY t.created_at, t.id LIMIT $3`,
    [target.walletId, target.networkId, Math.min(settings.batchSize, room)],
  );
  if (waiting.length === 0) return undefined;
  await devChain.ensureFunds(address);
  // Estimated against the latest block: a call that reverts now is not sent (its state changed since acceptance).
  // In full JSON-RPC batches, a few at once: one request per call would cost the node more than the estimates.
  // Asked while the fees are: the answers are used only when the fees allow sending.
  const estimating = inRpcBatches(waiting, ESTIMATE_BATCHES_IN_FLIGHT, async (row) => {
    try {
      const gas = await client.estimateGas({
        account: address,
        to: row.to,
        data: row.data,
        value: BigInt(row.value),
        blockTag: 'latest',
      });
      return { row, gas };
    } catch (error) {
      if (isUnreachable(error)) throw error;
      return { row, error };
    }
  });
  estimating.catch(() => undefined);
  // What the wallet can pay: read beside the estimates, so that a round costs no extra round trip.
  const balanceRead = Promise.all([
    client.getBalance({ address, blockTag: 'latest' }),
    client.getTransactionCount({ address, blockTag: 'latest' }),
  ]).then(
    async ([balance, mined]): Promise<Funds> => ({
      address,
      balance,
      reserved: await reservedInFlight(db, target, mined),
    }),
  );
  balanceRead.catch(() => undefined);
  const network = await networkFees(client);
  const cap = feeCapOf(settings, target.networkId);
  const fees = feesWithHeadroom(network, cap);
  if (fees.maxFeePerGas < network.baseFee) {
    await db.query(
      `UPDATE transactions SET error_message = $3, updated_at = clock_timestamp()
        WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'created' AND error_message IS NULL`,
      [target.walletId, target.networkId, cappedMessage(target.networkId, network.baseFee, cap)],
    );
    return PRICED_OUT;
  }
  const [estimates, funds] = await Promise.all([estimating, balanceRead]);
  // In order: a row its wallet cannot pay for waits (rows after it wait behind it, as their nonces would).
  const ready: { id: string; gas: bigint }[] = [];
  const headroom = BigInt(100 + settings.gasHeadroomPercent);
  let available = funds.balance - funds.reserved;
  let fundsShort = false;
  let retryLater = false;
  for (const estimate of estimates) {
    const { row } = estimate;
    if (fundsShort) break;
    const value = BigInt(row.value);
    if ('error' in estimate) {
      const { error } = estimate;
      if (isRevert(error)) {
        await markEstimateReverted(
          db,
          row.id,
          `Reverted before broadcast (the chain's state changed since it was accepted): ${describeRevert(error, await contractAbiForErrors(db, row.contractId))}`,
        );
        continue;
      }
      if (isInsufficientFunds(nodeAnswer(error))) {
        fundsShort = true;
        await waitForFunds(db, settings, row.id, funds, `${value} wei of value and its gas`);
        continue;
      }
      // Not a revert: the node could not estimate now (a reorg in progress, a block it does not have yet). Tried
      // again after a pause, as many times as an unreachable endpoint; then broadcast-failed.
      const { rows } = await db.query<{ attempts: number }>(
        `UPDATE transactions SET send_attempts = send_attempts + 1, updated_at = clock_timestamp()
          WHERE id = $1 AND status = 'created' RETURNING send_attempts AS attempts`,
        [row.id],
      );
      if ((rows[0]?.attempts ?? 0) <= settings.retryDelaysMs.length) {
        retryLater = true;
        continue;
      }
      await markEstimateFailed(
        db,
        row.id,
        `Gas estimation failed ${settings.retryDelaysMs.length + 1} times: ${nodeAnswer(error)}`,
      );
      continue;
    }
    const gasLimit = (estimate.gas * headroom) / 100n;
    const cost = value + gasLimit * fees.maxFeePerGas;
    if (cost > available) {
      fundsShort = true;
      await waitForFunds(
        db,
        settings,
        row.id,
        funds,
        `${cost} wei (value ${value} + gas limit ${gasLimit} × max fee ${fees.maxFeePerGas} wei)`,
      );
      continue;
    }
    available -= cost;
    ready.push({ id: row.id, gas: estimate.gas });
  }
  return { ready, fees, retryLater, fundsShort };
}

/**
 * How many more transactions the wallet may have sent and not yet mined (`maxInFlight`): a hosted node's pool
 * refuses a sender's transactions past its per-account limit ("txpool is full"). When there is no room, the sender
 * stops; the monitor wakes it as transactions are mined (or the sender's look after letting go: see senderWanted).
 */
export async function inFlightRoom(sender: Omit<RoundContext, 'address' | 'client'>): Promise<number> {
  const { db, target, settings, devChain } = sender;
  let limit = settings.maxInFlight[target.networkId];
  if (limit === undefined) {
    if (await devChain.automineOn()) return Number.POSITIVE_INFINITY;
    limit = DEFAULT_MAX_IN_FLIGHT;
  }
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('processing', 'broadcasted', 'cancelling')`,
    [target.walletId, target.networkId],
  );
  return limit - (rows[0]?.n ?? 0);
}
