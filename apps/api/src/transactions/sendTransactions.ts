import type { Address, LocalAccount } from 'viem';
import { isRateLimited, isUnreachable, rateLimitRetryAfterMs, shortError } from '#api/chain/chainErrors.ts';
import type { Db } from '#api/db/db.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { SignerUnavailableError } from '#api/wallets/custody.ts';
import { broadcastBatch, type SignedRow } from './broadcastBatch.ts';
import { feesWithHeadroom, networkFees } from './fees.ts';
import { failWaitingOfWallet, markNonceAllocated } from './lifecycle.ts';
import { allocateNonces, invalidateNonce, resync } from './nonces.ts';
import { inFlightRoom, PRICED_OUT, type Prepared, prepareRound, type RoundContext } from './prepareRound.ts';
import { clearWakeRequest, type SenderQueue, type WalletNetwork, walletChain } from './senders.ts';
import { feeCapOf, type TransactionSettings } from './settings.ts';
import { signEip1559, walletRecord } from './signing.ts';
import { submitTransactions } from './submitTransactions.ts';

interface Sender extends RoundContext {
  account: LocalAccount;
  queue: SenderQueue;
}

/**
 * The `transaction:send` job of one (wallet, network), run under the wallet's send lock: estimates gas, allocates
 * nonces, signs and broadcasts every waiting transaction, in rounds, until none is left.
 */
export async function sendTransactions(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork,
  queue: SenderQueue,
): Promise<void> {
  await sendWhileWaiting(deps, settings, target, queue);
}

async function sendWhileWaiting(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork,
  queue: SenderQueue,
) {
  const wallet = await walletRecord(deps.db, target.walletId);
  let sender: Sender | undefined;
  let submitting: ((signal: AbortSignal) => Promise<void>) | undefined;
  try {
    const chain = walletChain(deps.chains, target);
    const submitter = deps.signers.submitterFor(wallet);
    if (submitter) {
      const context = { db: deps.db, settings, target, ...chain, address: wallet.address as Address };
      submitting = (signal) => submitTransactions(context, submitter, wallet, queue, signal);
    } else {
      const account = deps.signers.signerFor(wallet);
      sender = { db: deps.db, settings, target, ...chain, account, address: account.address, queue };
    }
  } catch (error) {
    // No signer, no custodian or no RPC endpoint: retrying cannot help.
    await clearWakeRequest(deps.db, target);
    await failWaiting(deps.db, target, (error as Error).message);
    return;
  }
  // A custodian's sender keeps the wake flag while it runs (see submitTransactions); this one clears it at its start.
  if (submitting) return submitting(deps.signal);
  if (!sender) return;
  await clearWakeRequest(deps.db, target);
  const started = Date.now();
  // The next round's selection and gas estimates run while this round is broadcast (they need the node too, and
  // so overlap its work); its nonces are allocated only after this round's outcome is recorded.
  let following: Promise<Prepared | typeof PRICED_OUT | undefined> | undefined;
  // Whether the endpoint answered in this run (the first round's selection and estimates went through).
  let reached = false;
  try {
    while (!deps.signal.aborted && Date.now() - started < settings.jobBudgetMs) {
      const resumed = await resumable(sender);
      if (resumed.length > 0) {
        if (await broadcastRound(sender, resumed)) return;
        continue;
      }
      const prepared = await (following ?? prepare(sender));
      following = undefined;
      if (!reached) {
        reached = true;
        await endOutage(deps.db, target);
      }
      if (!prepared) {
        // Nothing waits, and no round is in flight: the time to fill nonces a failure released.
        await fillNonceHoles(sender);
        return;
      }
      if (prepared === PRICED_OUT) {
        await queue.again(new Date(Date.now() + settings.feeCapPollMs));
        return;
      }
      const batch = await allocate(sender, prepared);
      if (batch.length === 0) {
        if (prepared.fundsShort) {
          // The wallet cannot pay for the next row: it waits, saying so, and the balance is looked at again later.
          await queue.again(new Date(Date.now() + settings.fundsPollMs));
          return;
        }
        if (prepared.retryLater) {
          await queue.again(new Date(Date.now() + (settings.retryDelaysMs[0] ?? 1_000)));
          return;
        }
        continue;
      }
      following = prepare(sender);
      following.catch(() => {}); // awaited next round; a failure meanwhile must not be unhandled
      if (await broadcastRound(sender, batch)) return;
    }
    await queue.again();
  } catch (error) {
    if (error instanceof SignerUnavailableError) {
      // The key cannot sign now (disabled, its service down): the rows wait, keeping their nonces, and say why.
      await sayWhyWaiting(deps.db, target, error.message);
      await queue.again(new Date(Date.now() + error.retryAfterMs));
      return;
    }
    if (isRateLimited(error)) {
      // Past the provider's rate, not down: no attempt is counted; the sender comes back when the provider asked.
      await queue.again(new Date(Date.now() + Math.max(1_000, rateLimitRetryAfterMs(error) ?? 0)));
      return;
    }
    if (!isUnreachable(error)) throw error;
    const delay = await recordUnreachable(deps.db, target, settings, error);
    if (delay !== undefined) await queue.again(new Date(Date.now() + delay));
  } finally {
    await following?.catch(() => {});
  }
}

/**
 * Broadcasts one round. true when the node said "not now" (a base fee above the fees just signed, a full pool):
 * the sender has then queued itself for after a pause and stops.
 */
async function broadcastRound(sender: Sender, batch: SignedRow[]): Promise<boolean> {
  const { sent, pause } = await broadcastBatch(sender, batch);
  if (sent > 0) await sender.queue.monitor();
  if (pause) await sender.queue.again(new Date(Date.now() + sender.settings.feeCapPollMs));
  return pause;
}

/** Transactions left `processing` by a sender that died or lost the RPC: same nonce, same fees, so the same hash. */
async function resumable(sender: Sender): Promise<SignedRow[]> {
  const { db, target, settings } = sender;
  const { rows } = await db.query<SignedRow>(
    `SELECT id, to_address AS "to", data, value::text AS value, nonce, gas_limit::text AS "gas", gas_price::text AS "maxFeePerGas",
            max_priority_fee_per_gas::text AS "maxPriorityFeePerGas", raw_transaction AS raw
     FROM transactions WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'processing'
     ORDER BY nonce LIMIT $3`,
    [target.walletId, target.networkId, settings.batchSize],
  );
  return rows;
}

/** The next round of a signer wallet: as many as its in-flight limit leaves room for. */
async function prepare(sender: Sender): Promise<Prepared | typeof PRICED_OUT | undefined> {
  return prepareRound(sender, await inFlightRoom(sender));
}

/** A row of the round left `created` before its nonce was given (cancelled meanwhile): the round is prepared again. */
class RoundChanged extends Error {}

/**
 * Nonces, gas limits and fees for prepared transactions, in one database transaction; they become `processing`. A
 * row that left `created` meanwhile (cancelled) would leave its nonce unused: then nothing is allocated (empty).
 */
async function allocate(sender: Sender, prepared: Prepared): Promise<SignedRow[]> {
  try {
    return await allocateOnce(sender, prepared);
  } catch (error) {
    if (error instanceof RoundChanged) return [];
    throw error;
  }
}

async function allocateOnce(sender: Sender, { ready, fees }: Prepared): Promise<SignedRow[]> {
  const { db, target, settings, client, account } = sender;
  if (ready.length === 0) return [];
  const headroom = BigInt(100 + settings.gasHeadroomPercent);
  return db.transaction(async (tx) => {
    const nonces = await allocateNonces(tx, target, ready.length, () =>
      client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    );
    const rows = await markNonceAllocated<SignedRow>(
      tx,
      ready.map((r, i) => ({ id: r.id, nonce: nonces[i] as number, gas: ((r.gas * headroom) / 100n).toString() })),
      { maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() },
      `t.id, t.to_address AS "to", t.data, t.value::text AS value, t.nonce, t.gas_limit::text AS "gas",
         t.gas_price::text AS "maxFeePerGas", t.max_priority_fee_per_gas::text AS "maxPriorityFeePerGas"`,
    );
    if (rows.length < ready.length) throw new RoundChanged();
    return rows.sort((a, b) => Number(a.nonce) - Number(b.nonce));
  });
}

/**
 * A nonce released by a failure, below nonces already broadcast, would hold those back forever. When nothing is
 * waiting to take it, a 0-value transfer to the wallet itself fills it.
 */
async function fillNonceHoles(sender: Sender): Promise<void> {
  const { db, target, settings, client, account } = sender;
  const { rows } = await db.query<{ next: number | null }>(
    'SELECT next_nonce AS next FROM wallet_nonces WHERE system_wallet_id = $1 AND network_id = $2',
    [target.walletId, target.networkId],
  );
  if (!rows[0] || rows[0].next !== null) return;
  const chainNonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const { holes } = await db.transaction((tx) => resync(tx, target, chainNonce));
  if (holes.length === 0) return;
  const fees = feesWithHeadroom(await networkFees(client), feeCapOf(settings, target.networkId));
  for (const nonce of holes) {
    const serialized = await signEip1559(account, target.networkId, {
      to: account.address,
      nonce,
      gas: 21_000n,
      ...fees,
    });
    await client.sendRawTransaction({ serializedTransaction: serialized }).catch(() => {});
  }
}

/**
 * RPC unreachable: one more attempt of the sender's retry schedule, if it is due (a run woken early by a new
 * execution uses up no retry); past the last retry, every waiting transaction ends broadcast-failed. Answers when to
 * try again, or undefined when nothing waits any more.
 */
async function recordUnreachable(db: Db, target: WalletNetwork, settings: TransactionSettings, error: unknown) {
  const message = `The RPC endpoint of network ${target.networkId} was unreachable after ${settings.retryDelaysMs.length + 1} attempts: ${shortError(error)}`;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ attempts: number; dueInMs: number | null }>(
      `SELECT unreachable_attempts AS attempts,
              ceil(extract(epoch FROM unreachable_retry_at - clock_timestamp()) * 1000)::int AS "dueInMs"
         FROM transaction_senders WHERE system_wallet_id = $1 AND network_id = $2 FOR UPDATE`,
      [target.walletId, target.networkId],
    );
    const dueInMs = rows[0]?.dueInMs ?? 0;
    if (dueInMs > 0) return dueInMs;
    const attempts = (rows[0]?.attempts ?? 0) + 1;
    const delay = settings.retryDelaysMs[attempts - 1];
    if (delay !== undefined) {
      await tx.query(
        `UPDATE transaction_senders SET unreachable_attempts = $3,
           unreachable_retry_at = clock_timestamp() + $4 * interval '1 millisecond'
         WHERE system_wallet_id = $1 AND network_id = $2`,
        [target.walletId, target.networkId, attempts, delay],
      );
      return delay;
    }
    if (await failWaitingOfWallet(tx, target, 'rpc-unreachable', message)) await invalidateNonce(tx, target);
    await endOutage(tx, target);
    return undefined;
  });
}

/** The RPC endpoint answered: a later outage starts the retry schedule afresh. */
async function endOutage(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  await db.query(
    `UPDATE transaction_senders SET unreachable_attempts = 0, unreachable_retry_at = NULL
      WHERE system_wallet_id = $1 AND network_id = $2 AND unreachable_attempts > 0`,
    [target.walletId, target.networkId],
  );
}

/** The wallet's waiting transactions say why they wait (once: a message already there is not written again). */
async function sayWhyWaiting(db: Db, target: WalletNetwork, message: string): Promise<void> {
  await db.query(
    `UPDATE transactions SET error_message = $3, updated_at = clock_timestamp()
      WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('created', 'processing')
        AND error_message IS DISTINCT FROM $3`,
    [target.walletId, target.networkId, message],
  );
}

/** Every waiting transaction of the wallet becomes broadcast-failed with `message`; their nonces are released. */
async function failWaiting(db: Db, target: WalletNetwork, message: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (await failWaitingOfWallet(tx, target, 'no-sender', message)) await invalidateNonce(tx, target);
  });
}
