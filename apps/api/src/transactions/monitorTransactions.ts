import { setTimeout as sleep } from 'node:timers/promises';
import type { Address, Hex, PublicClient, TransactionReceipt } from 'viem';
import { describeRevert, isUnreachable, shortError } from '#api/chain/chainErrors.ts';
import { DEV_STALL_MS } from '#api/chain/devChain.ts';
import { inRpcBatches } from '#api/chain/rpcBatches.ts';
import { contractAbiForErrors } from '#api/contracts/contracts.ts';
import type { Db } from '#api/db/db.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { mapLimit } from '#api/lib/mapLimit.ts';
import { transactionCancellations } from '#api/metrics/instruments.ts';
import type { Submitter } from '#api/wallets/custody.ts';
import { observeChain } from './canonical.ts';
import { networkFees } from './fees.ts';
import { followCanonical } from './followCanonical.ts';
import { followCustodian } from './followCustodian.ts';
import {
  applyDueCancels,
  failBroadcastOfWallet,
  markCancelMined,
  markMined,
  markMinedReverted,
  markMonitorFailed,
  type ReceiptValues,
} from './lifecycle.ts';
import { receiptOf } from './receipts.ts';
import { repairDropped } from './repairDropped.ts';
import { replaceWithHigherFees, repriceWaiting, type WaitingRow } from './replaceWithHigherFees.ts';
import { type WalletChain, type WalletNetwork, walletChain } from './senders.ts';
import type { TransactionSettings } from './settings.ts';
import { walletRecord } from './signing.ts';

/**
 * What the monitor queues: itself, to go on later, and the wallet's sender: to fill a nonce hole, or to send what
 * waited for room under the in-flight limit.
 */
export interface MonitorQueue {
  again(runAt: Date): Promise<void>;
  sender(): Promise<void>;
}

/** Receipt-lookup batches in flight at once. */
const RECEIPT_BATCHES_IN_FLIGHT = 4;

interface BroadcastRow extends WaitingRow {
  hashes: Hex[];
  from: Address;
  ageMs: number;
  sinceBroadcastMs: number;
  contractId: number;
}

/**
 * The `transaction:monitor` job of one (wallet, network), run under the wallet's monitor lock: waits for the
 * receipts of broadcast transactions and records succeeded or reverted (with the reason), gas used, block and
 * effective gas price. A transaction without receipt after `resendAfterMs` is re-sent with a higher fee on the same
 * nonce; after `receiptTimeoutMs`, it is monitor-failed. `again` queues the monitor to go on later.
 */
export async function monitorTransactions(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork,
  queue: MonitorQueue,
): Promise<void> {
  let chain: WalletChain;
  try {
    chain = walletChain(deps.chains, target);
  } catch (error) {
    await failBroadcastOfWallet(deps.db, target, (error as Error).message);
    return;
  }
  const wallet = await walletRecord(deps.db, target.walletId);
  const address = wallet.address as Address;
  // A custodian that signs and broadcasts itself: its status is followed, and it alone re-sends (no fee bumps).
  let submitter: Submitter | undefined;
  try {
    submitter = deps.signers.submitterFor(wallet);
  } catch (error) {
    await failBroadcastOfWallet(deps.db, target, (error as Error).message);
    return;
  }
  const started = Date.now();
  while (!deps.signal.aborted && Date.now() - started < settings.jobBudgetMs) {
    const { waiting, watched, custodianPending } = await checkOnce(
      deps,
      settings,
      { ...target, address, devChain: chain.devChain },
      chain.client,
      queue,
      submitter,
    );
    if (waiting === 0) {
      // Only rows the custodian still holds (waiting for its policy, an approval, its queue), or mined transactions
      // left to watch until final: look again later, without holding a worker slot.
      if (custodianPending > 0 && submitter) {
        await queue.again(new Date(Date.now() + Math.min(submitter.pollIntervalMs, settings.finalityPollMs)));
      } else if (watched > 0) await queue.again(new Date(Date.now() + settings.finalityPollMs));
      return;
    }
    await sleep(settings.monitorPollMs, undefined, { signal: deps.signal }).catch(() => {});
  }
  await queue.again(new Date(Date.now() + settings.monitorPollMs));
}

/**
 * One pass: the chain's head and finalized block, then the broadcast transactions (receipts, re-sends, time-outs),
 * then the mined ones not final yet (still on the canonical chain?). Returns how many still wait for a receipt and
 * how many mined ones are still watched.
 */
async function checkOnce(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork & Pick<WalletChain, 'devChain'> & { address: Address },
  client: PublicClient,
  queue: MonitorQueue,
  submitter: Submitter | undefined,
): Promise<{ waiting: number; watched: number; custodianPending: number }> {
  const { address } = target;
  try {
    // Cancels asked for, and deadlines passed: before the receipts (a custodian sends its own transactions, and
    // cancels only those not handed to it yet).
    await applyDueCancels(deps.db, target, { sent: !submitter });
    const custodianPending = submitter
      ? (await followCustodian(deps.db, client, target, submitter, settings)).pending
      : 0;
    const [view, minedCount] = await Promise.all([
      observeChain(deps.db, client, target.networkId, {
        fallbackDepth: settings.finalityDepth[target.networkId] ?? 0,
        lagGraceMs: settings.lagGraceMs,
      }),
      client.getTransactionCount({ address, blockTag: 'latest' }),
    ]);
    const { waiting, settled } = await settleBroadcast(deps, settings, target, client, minedCount, !submitter);
    // Room under the in-flight limit: what waited for it can go.
    if (settled > 0 && (await hasCreated(deps.db, target))) await queue.sender();
    const canonical = await followCanonical(deps.db, client, target, view, minedCount, address);
    if (!view.lagging && waiting > 0) {
      // A custodian's transaction is sent again only as the very bytes it signed (once the node showed them); a
      // hole in its nonces is the custodian's to fill.
      await repairDropped(deps.db, client, target, address, {
        resendDroppedAfterMs: settings.resendDroppedAfterMs,
        fillHoles: submitter ? async () => {} : queue.sender,
      });
    }
    return { waiting: waiting + canonical.takenBack, watched: canonical.watched, custodianPending };
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    return { waiting: await timeOutUnreachable(deps.db, settings, target, error), watched: 1, custodianPending: 0 };
  }
}

/** Whether transactions of the wallet wait to be sent (held back by the in-flight limit, or just accepted). */
async function hasCreated(db: Db, target: WalletNetwork): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM transactions WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'created' LIMIT 1`,
    [target.walletId, target.networkId],
  );
  return rows.length > 0;
}

/** The RPC cannot be reached: only the receipt time-out applies. Returns how many still wait. */
async function timeOutUnreachable(
  db: Db,
  settings: TransactionSettings,
  target: WalletNetwork,
  error: unknown,
): Promise<number> {
  const { rows } = await db.query<{ id: string; ageMs: number }>(
    `SELECT id, (extract(epoch FROM clock_timestamp() - created_at) * 1000)::bigint AS "ageMs"
       FROM transactions WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('broadcasted', 'cancelling')`,
    [target.walletId, target.networkId],
  );
  for (const row of rows.filter((r) => r.ageMs > settings.receiptTimeoutMs)) {
    await markMonitorFailed(
      db,
      row.id,
      'receipt-timeout',
      `No receipt after ${Math.round(settings.receiptTimeoutMs / 1000)} s; the RPC endpoint is unreachable: ${shortError(error)}`,
    );
  }
  return rows.length;
}

/**
 * The broadcast transactions: receipts, re-sends, time-outs. Returns how many still wait, and how many settled.
 * `resends`: the platform signs for the wallet, so it may re-send with higher fees (not for a custodian's wallet).
 */
async function settleBroadcast(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork & Pick<WalletChain, 'devChain'>,
  client: PublicClient,
  minedCount: number,
  resends: boolean,
): Promise<{ waiting: number; settled: number }> {
  const { rows } = await deps.db.query<BroadcastRow>(
    `SELECT t.id, t.previous_hashes AS hashes, w.address AS "from", t.to_address AS "to", t.data, t.value::text AS value, t.nonce,
            t.gas_limit::text AS gas, t.gas_price::text AS "maxFeePerGas",
            t.max_priority_fee_per_gas::text AS "maxPriorityFeePerGas", t.fee_bumps AS "feeBumps",
            t.error_message AS "errorMessage", t.speed_up_multiplier::float8 AS "speedUp",
            t.status = 'cancelling' AS cancelling, t.cancel_hashes AS "cancelHashes",
            (extract(epoch FROM clock_timestamp() - t.created_at) * 1000)::bigint AS "ageMs",
            (extract(epoch FROM clock_timestamp() - t.broadcasted_at) * 1000)::bigint AS "sinceBroadcastMs",
            c.id AS "contractId"
     FROM transactions t
     JOIN system_wallets w ON w.id = t.system_wallet_id
     JOIN contract_activated_functions f ON f.id = t.contract_activated_function_id
     JOIN contracts c ON c.id = f.contract_id
     WHERE t.system_wallet_id = $1 AND t.network_id = $2 AND t.status IN ('broadcasted', 'cancelling')
     ORDER BY t.nonce NULLS LAST, t.created_at LIMIT 1000`,
    [target.walletId, target.networkId],
  );
  if (rows.length === 0) return { waiting: 0, settled: 0 };
  // Only a nonce below the wallet's mined count can have a receipt: one call spares a receipt lookup for each
  // transaction still waiting (under a backlog, most of them).
  // A custodian's transaction has no nonce until the node knows it: its receipt is looked up anyway.
  const receipts = await inRpcBatches(rows, RECEIPT_BATCHES_IN_FLIGHT, async (row) =>
    row.nonce === null || Number(row.nonce) < minedCount ? receiptOf(client, row.hashes) : undefined,
  );
  const stalled = resends && rows.find((row, i) => !receipts[i] && row.sinceBroadcastMs > DEV_STALL_MS);
  if (stalled && (await target.devChain.unstick()) && stalled.feeBumps < settings.maxFeeBumps) {
    await replaceWithHigherFees(deps, settings, target, client, [stalled], await networkFees(client));
  }
  // A receipt of a cancelling transfer is the cancel's; any other is the original's.
  const isCancel = (row: BroadcastRow, receipt: TransactionReceipt | undefined) =>
    receipt !== undefined && (row.cancelHashes ?? []).includes(receipt.transactionHash);
  const settledAs = (wanted: 'cancelled' | 'succeeded') =>
    rows.flatMap((row, i) => {
      const receipt = receipts[i];
      if (!receipt) return [];
      const outcome = isCancel(row, receipt) ? 'cancelled' : receipt.status === 'success' ? 'succeeded' : undefined;
      return outcome === wanted ? [{ id: row.id, receipt: receiptValues(receipt), cancelling: row.cancelling }] : [];
    });
  // Successes are recorded in one statement (one commit for the whole pass, not one per transaction).
  const succeeded = settledAs('succeeded');
  const cancelled = settledAs('cancelled');
  await markMined(deps.db, succeeded);
  await markCancelMined(deps.db, cancelled);
  if (cancelled.length > 0) transactionCancellations.inc({ outcome: 'cancelled' }, cancelled.length);
  const lost = succeeded.filter((s) => s.cancelling).length;
  const stillWaiting: BroadcastRow[] = [];
  await mapLimit(rows, 8, async (row, i) => {
    const receipt = receipts[i];
    if (receipt?.status === 'success' || isCancel(row, receipt)) return;
    if (receipt) {
      if (row.cancelling) transactionCancellations.inc({ outcome: 'lost' });
      return recordRevert(deps.db, client, row, receipt);
    }
    if (row.ageMs > settings.receiptTimeoutMs) {
      return markMonitorFailed(
        deps.db,
        row.id,
        'receipt-timeout',
        `No receipt after ${Math.round(settings.receiptTimeoutMs / 1000)} s (nonce ${row.nonce}, last hash ${row.hashes.at(-1)})`,
      );
    }
    stillWaiting.push(row);
  });
  if (lost > 0) transactionCancellations.inc({ outcome: 'lost' }, lost);
  if (!resends) return { waiting: stillWaiting.length, settled: rows.length - stillWaiting.length };
  await repriceWaiting(
    deps,
    settings,
    target,
    client,
    stillWaiting.sort((a, b) => Number(a.nonce) - Number(b.nonce)),
  );
  return { waiting: stillWaiting.length, settled: rows.length - stillWaiting.length };
}

/** A receipt as the row keeps it. */
function receiptValues(receipt: TransactionReceipt): ReceiptValues {
  return {
    transactionHash: receipt.transactionHash,
    gasUsed: receipt.gasUsed.toString(),
    gasPrice: receipt.effectiveGasPrice.toString(),
    blockNumber: receipt.blockNumber.toString(),
    blockHash: receipt.blockHash,
  };
}

/** A receipt of a call that reverted on chain: `reverted`, with the reason replaying the call at its block gives. */
async function recordRevert(db: Db, client: PublicClient, row: BroadcastRow, receipt: TransactionReceipt) {
  // Replaying the call at its block gives the reason (the block's state includes what made it revert).
  let reason = 'no reason given';
  try {
    await client.call({
      account: row.from,
      to: row.to,
      data: row.data,
      value: BigInt(row.value),
      gas: BigInt(row.gas),
      blockNumber: receipt.blockNumber,
    });
  } catch (error) {
    reason = describeRevert(error, await contractAbiForErrors(db, row.contractId));
  }
  await markMinedReverted(db, row.id, receiptValues(receipt), `Reverted on chain: ${reason}`);
}
