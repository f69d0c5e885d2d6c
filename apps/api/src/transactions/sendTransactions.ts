import type { Address, Hex, LocalAccount, PublicClient } from 'viem';
import {
  describeRevert,
  isRateLimited,
  isRevert,
  isUnreachable,
  nodeAnswer,
  rateLimitRetryAfterMs,
  shortError,
} from '#api/chain/chainErrors.ts';
import { inRpcBatches } from '#api/chain/rpcBatches.ts';
import type { NetworkId } from '#api/config/networks.ts';
import { contractAbiForErrors } from '#api/contracts/contracts.ts';
import type { Db } from '#api/db/db.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { broadcastBatch, type SignedRow } from './broadcastBatch.ts';
import { automineOn, ensureDevFunds } from './devChain.ts';
import { cappedMessage, type Fees, feesWithHeadroom, networkFees } from './fees.ts';
import { allocateNonces, invalidateNonce, resync } from './nonces.ts';
import { clearWakeRequest, type WalletNetwork } from './senders.ts';
import { DEFAULT_MAX_IN_FLIGHT, feeCapOf, type TransactionSettings } from './settings.ts';
import { signEip1559, walletRecord } from './signing.ts';

/** What the sender queues: itself again (to go on, or after a pause), and the wallet's receipt monitor. */
export interface SenderQueue {
  again(runAt?: Date): Promise<void>;
  monitor(): Promise<void>;
}

interface Sender {
  db: Db;
  settings: TransactionSettings;
  target: WalletNetwork;
  client: PublicClient;
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
  await clearWakeRequest(deps.db, target);
  await sendWhileWaiting(deps, settings, target, queue);
}

async function sendWhileWaiting(
  deps: WorkerDeps,
  settings: TransactionSettings,
  target: WalletNetwork,
  queue: SenderQueue,
) {
  const wallet = await walletRecord(deps.db, target.walletId);
  let sender: Sender;
  try {
    const account = deps.signers.signerFor(wallet);
    const client = deps.chains.client(target.networkId as NetworkId);
    sender = { db: deps.db, settings, target, client, account, queue };
  } catch (error) {
    // No signer or no RPC endpoint: retrying cannot help.
    await failWaiting(deps.db, target, (error as Error).message);
    return;
  }
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
    `SELECT id, to_address AS "to", data, nonce, gas_limit::text AS "gas", gas_price::text AS "maxFeePerGas",
            max_priority_fee_per_gas::text AS "maxPriorityFeePerGas"
     FROM transactions WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'processing'
     ORDER BY nonce LIMIT $3`,
    [target.walletId, target.networkId, settings.batchSize],
  );
  return rows;
}

interface Prepared {
  ready: { id: string; gas: bigint }[];
  fees: Fees;
  /** Some could not be estimated now: the sender comes back after a pause. */
  retryLater: boolean;
}

/** Gas-estimate batches in flight at once. */
const ESTIMATE_BATCHES_IN_FLIGHT = 4;

/** The network's base fee is above the fee cap: nothing sent now could be mined. */
const PRICED_OUT = Symbol('priced out');

/**
 * The next `created` transactions with their gas estimates; those whose estimate fails end here (reverted or
 * broadcast-failed). undefined when nothing is waiting; PRICED_OUT when the base fee is above the network's fee
 * cap (the waiting transactions then say so in their `errorMessage`).
 */
async function prepare(sender: Sender): Promise<Prepared | typeof PRICED_OUT | undefined> {
  const { db, target, settings, client, account } = sender;
  const room = await inFlightRoom(sender);
  if (room <= 0) return undefined;
  const { rows: waiting } = await db.query<{ id: string; to: Address; data: Hex; contractId: number }>(
    `SELECT t.id, t.to_address AS "to", t.data, c.id AS "contractId"
     FROM transactions t
     JOIN contract_activated_functions f ON f.id = t.contract_activated_function_id
     JOIN contracts c ON c.id = f.contract_id
     WHERE t.system_wallet_id = $1 AND t.network_id = $2 AND t.status = 'created'
     ORDER BY t.created_at, t.id LIMIT $3`,
    [target.walletId, target.networkId, Math.min(settings.batchSize, room)],
  );
  if (waiting.length === 0) return undefined;
  await ensureDevFunds(client, target.networkId, account.address);
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
  // Estimated against the latest block: a call that reverts now is not sent (its state changed since acceptance).
  // In full JSON-RPC batches, a few at once: one request per call would cost the node more than the estimates.
  const estimates = await inRpcBatches(waiting, ESTIMATE_BATCHES_IN_FLIGHT, async (row) => {
    try {
      const gas = await client.estimateGas({
        account: account.address,
        to: row.to,
        data: row.data,
        blockTag: 'latest',
      });
      return { row, gas };
    } catch (error) {
      if (isUnreachable(error)) throw error;
      return { row, error };
    }
  });
  const refused = estimates.filter((e) => 'error' in e);
  let retryLater = false;
  for (const { row, error } of refused as { row: (typeof waiting)[number]; error: unknown }[]) {
    if (isRevert(error)) {
      await db.query(
        `UPDATE transactions SET status = 'reverted', error_message = $2, updated_at = clock_timestamp()
         WHERE id = $1 AND status = 'created'`,
        [
          row.id,
          `Reverted before broadcast (the chain's state changed since it was accepted): ${describeRevert(error, await contractAbiForErrors(db, row.contractId))}`,
        ],
      );
      continue;
    }
    // Not a revert: the node could not estimate now (a reorg in progress, a block it does not have yet, a wallet
    // that cannot pay). Tried again after a pause, as many times as an unreachable endpoint; then broadcast-failed.
    const { rows } = await db.query<{ attempts: number }>(
      `UPDATE transactions SET send_attempts = send_attempts + 1, updated_at = clock_timestamp()
        WHERE id = $1 AND status = 'created' RETURNING send_attempts AS attempts`,
      [row.id],
    );
    if ((rows[0]?.attempts ?? 0) <= settings.retryDelaysMs.length) {
      retryLater = true;
      continue;
    }
    await db.query(
      `UPDATE transactions SET status = 'broadcast-failed', error_message = $2, updated_at = clock_timestamp()
       WHERE id = $1 AND status = 'created'`,
      [row.id, `Gas estimation failed ${settings.retryDelaysMs.length + 1} times: ${nodeAnswer(error)}`],
    );
  }
  const ready = estimates.flatMap((e) => (e.gas !== undefined ? [{ id: e.row.id, gas: e.gas }] : []));
  return { ready, fees, retryLater };
}

/**
 * How many more transactions the wallet may have sent and not yet mined (`maxInFlight`): a hosted node's pool
 * refuses a sender's transactions past its per-account limit ("txpool is full"). When there is no room, the sender
 * stops; the monitor wakes it as transactions are mined.
 */
async function inFlightRoom(sender: Sender): Promise<number> {
  const { db, target, settings, client } = sender;
  let limit = settings.maxInFlight[target.networkId];
  if (limit === undefined) {
    if (await automineOn(client, target.networkId)) return Number.POSITIVE_INFINITY;
    limit = DEFAULT_MAX_IN_FLIGHT;
  }
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('processing', 'broadcasted')`,
    [target.walletId, target.networkId],
  );
  return limit - (rows[0]?.n ?? 0);
}

/** Nonces, gas limits and fees for prepared transactions, in one database transaction; they become `processing`. */
async function allocate(sender: Sender, { ready, fees }: Prepared): Promise<SignedRow[]> {
  const { db, target, settings, client, account } = sender;
  if (ready.length === 0) return [];
  const headroom = BigInt(100 + settings.gasHeadroomPercent);
  return db.transaction(async (tx) => {
    const nonces = await allocateNonces(tx, target, ready.length, () =>
      client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    );
    const { rows } = await tx.query<SignedRow>(
      `UPDATE transactions t SET status = 'processing', nonce = v.nonce, gas_limit = v.gas,
         gas_price = $4, max_priority_fee_per_gas = $5, send_attempts = 0, error_message = NULL,
         updated_at = clock_timestamp()
       FROM unnest($1::uuid[], $2::bigint[], $3::numeric[]) AS v(id, nonce, gas)
       WHERE t.id = v.id AND t.status = 'created'
       RETURNING t.id, t.to_address AS "to", t.data, t.nonce, t.gas_limit::text AS "gas",
         t.gas_price::text AS "maxFeePerGas", t.max_priority_fee_per_gas::text AS "maxPriorityFeePerGas"`,
      [
        ready.map((r) => r.id),
        nonces,
        ready.map((r) => ((r.gas * headroom) / 100n).toString()),
        fees.maxFeePerGas.toString(),
        fees.maxPriorityFeePerGas.toString(),
      ],
    );
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
    const { rowCount } = await tx.query(
      `UPDATE transactions SET status = 'broadcast-failed', nonce = NULL, error_message = $3,
         updated_at = clock_timestamp()
       WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('created', 'processing')`,
      [target.walletId, target.networkId, message],
    );
    if (rowCount) await invalidateNonce(tx, target);
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

/** Every waiting transaction of the wallet becomes broadcast-failed with `message`; their nonces are released. */
async function failWaiting(db: Db, target: WalletNetwork, message: string): Promise<void> {
  await db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE transactions SET status = 'broadcast-failed', nonce = NULL, error_message = $3,
         updated_at = clock_timestamp()
       WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('created', 'processing')`,
      [target.walletId, target.networkId, message],
    );
    if (rowCount) await invalidateNonce(tx, target);
  });
}
