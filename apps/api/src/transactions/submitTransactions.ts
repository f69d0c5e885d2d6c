import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { isUnreachable, rateLimitRetryAfterMs } from '#api/chain/chainErrors.ts';
import type { CustodyCall, SubmitOutcome, Submitter } from '#api/wallets/custody.ts';
import type { SystemWalletRecord } from '#api/wallets/signer.ts';
import { applyCustodianView } from './custodyStatus.ts';
import { markCustodianClaimed, markCustodianRefused } from './lifecycle.ts';
import { PRICED_OUT, prepareRound, type RoundContext } from './prepareRound.ts';
import { clearWakeRequest, HOLD_WAKE_EVERY_MS, holdWakeRequest, type SenderQueue } from './senders.ts';

/** Custodian creates in flight at once per wallet (each paced by the custodian's own request budget). */
const SUBMITS_IN_FLIGHT = 8;
/** While creates are in flight and nothing waits, how often the run looks for new rows (one indexed query). */
const LOOK_AGAIN_MS = 5;

interface SubmitRow {
  id: string;
  to: string;
  data: Hex;
  value: string;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  keyAttempt: number;
}

const submitRowColumns = (t: string) => `${t}.id, ${t}.to_address AS "to", ${t}.data, ${t}.value::text AS value,
  ${t}.gas_limit::text AS gas,
  ${t}.gas_price::text AS "maxFeePerGas", ${t}.max_priority_fee_per_gas::text AS "maxPriorityFeePerGas",
  ${t}.custody_key_attempt AS "keyAttempt"`;

/** Why rows wait, and for how long at least. */
interface Wait {
  message: string;
  afterMs: number;
}

/**
 * The `transaction:send` job of a wallet whose custodian signs and broadcasts (a submitter, DESIGN §6): every
 * waiting row is estimated and priced as for any wallet (a call that reverts now is not sent; fees within
 * MAX_FEE_PER_GAS_GWEI_<id>), marked `processing` with its gas limit and fee cap, and then submitted, one custodian
 * transaction per row. Rows are never held back for the custodian's own pace (it queues them itself), and the next
 * rows are prepared while the last ones are being submitted: a row waits for one round at most, not for the
 * custodian's answers to the rows before it.
 * A row marked `processing` without a custodian id may have reached the custodian (an answer lost, a crash after
 * sending): before anything new, such rows are submitted again as in doubt, which looks them up first. A custodian
 * that is unreachable, rate-limiting or failing keeps rows waiting (`errorMessage` says why) and is tried again later:
 * nothing is failed for the custodian's outage, and nothing is sent twice.
 */
export async function submitTransactions(
  ctx: RoundContext,
  submitter: Submitter,
  wallet: SystemWalletRecord,
  queue: SenderQueue,
  signal: AbortSignal,
): Promise<void> {
  const { db, target, settings } = ctx;
  const started = Date.now();
  const submits = submitPool(ctx, submitter, wallet);
  const going = () => !signal.aborted && !submits.waiting() && Date.now() - started < settings.jobBudgetMs;
  let next: Date | undefined | 'done' = 'done';
  let monitorWokenAt = Number.NEGATIVE_INFINITY;
  // The wake flag is held while this run reads (see holdWakeRequest); let go of before the last look, and always
  // at the end, so that a row accepted after the run queues a new one.
  let heldAt: number | undefined;
  const hold = async () => {
    if (heldAt !== undefined && Date.now() - heldAt < HOLD_WAKE_EVERY_MS) return;
    await holdWakeRequest(db, target);
    heldAt = Date.now();
  };
  try {
    await hold();
    // Rows that may have reached the custodian first, settled batch by batch: none of this run's are among them.
    for (;;) {
      const { rows } = await db.query<SubmitRow>(
        `SELECT ${submitRowColumns('t')} FROM transactions t
          WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'processing' AND custody_id IS NULL
          ORDER BY created_at, id LIMIT $3`,
        [target.walletId, target.networkId, settings.batchSize],
      );
      if (rows.length === 0 || !going()) break;
      await submits.add(rows, true);
      await submits.settled();
      await queue.monitor();
    }
    while (going()) {
      const prepared = await prepareRound(ctx, Number.POSITIVE_INFINITY);
      if (!prepared) {
        if (heldAt === undefined) break;
        if (submits.busy()) {
          // Nothing waits yet, but submits are in flight: the flag stays held (a row accepted meanwhile is read by a
          // look of this run instead of queueing a run that would find its lock held), and the next look comes when
          // one of them ends or LOOK_AGAIN_MS later, whichever is first: a row does not wait for a create's answer.
          await Promise.race([submits.next(), sleep(LOOK_AGAIN_MS)]);
          continue;
        }
        // Nothing waits: let go of the flag, then look once more for a row accepted before that (its acceptance
        // found the flag held and queued nothing).
        await clearWakeRequest(db, target);
        heldAt = undefined;
        continue;
      }
      await hold();
      if (prepared === PRICED_OUT) {
        next = new Date(Date.now() + settings.feeCapPollMs);
        break;
      }
      const rows = await claim(ctx, prepared);
      if (rows.length === 0) {
        if (!prepared.retryLater && !prepared.fundsShort) continue;
        // A row the wallet cannot pay for waits for funds: the balance is looked at again after a pause.
        const pauseMs = prepared.fundsShort ? settings.fundsPollMs : (settings.retryDelaysMs[0] ?? 1_000);
        next = new Date(Date.now() + pauseMs);
        break;
      }
      await submits.add(rows, false);
      // Its rows are `processing` now, which keeps the monitor going: woken once a second at most, not every round.
      if (Date.now() - monitorWokenAt >= 1_000) {
        monitorWokenAt = Date.now();
        await queue.monitor();
      }
    }
    if (next === 'done' && Date.now() - started >= settings.jobBudgetMs) next = undefined;
  } catch (error) {
    await submits.settled().catch(() => undefined);
    if (heldAt !== undefined) await clearWakeRequest(db, target).catch(() => undefined);
    // The chain's node (estimates, fees) cannot be reached: the rows wait as they are.
    if (!isUnreachable(error)) throw error;
    return await queue.again(new Date(Date.now() + Math.max(1_000, rateLimitRetryAfterMs(error) ?? 2_000)));
  }
  try {
    await submits.settled();
  } finally {
    if (heldAt !== undefined) await clearWakeRequest(db, target);
  }
  const waiting = submits.waiting();
  if (waiting) {
    // The rows behind say why they wait too.
    await db.query(
      `UPDATE transactions SET error_message = $3, updated_at = clock_timestamp()
        WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'created' AND error_message IS DISTINCT FROM $3`,
      [target.walletId, target.networkId, waiting.message],
    );
    return await queue.again(new Date(Date.now() + waiting.afterMs));
  }
  if (signal.aborted || next !== 'done') await queue.again(next === 'done' ? undefined : next);
}

/**
 * Submits rows SUBMITS_IN_FLIGHT at a time in the background: `add` resolves once its rows have all started (so the
 * caller may prepare the next ones), `settled` once every row has an outcome, and rethrows the first unexpected error.
 * `waiting` is why rows must wait (the soonest of their delays), once any must.
 */
function submitPool(ctx: RoundContext, submitter: Submitter, wallet: SystemWalletRecord) {
  const inFlight = new Set<Promise<void>>();
  let waiting: Wait | undefined;
  let failure: { error: unknown } | undefined;
  const settled = async () => {
    while (inFlight.size > 0) await Promise.race(inFlight);
    if (failure) throw failure.error;
  };
  return {
    waiting: () => waiting,
    busy: () => inFlight.size > 0,
    /** Resolves when one of the submits in flight ends. */
    next: () => Promise.race(inFlight),
    settled,
    async add(rows: SubmitRow[], inDoubt: boolean): Promise<void> {
      for (const row of rows) {
        while (inFlight.size >= SUBMITS_IN_FLIGHT) await Promise.race(inFlight);
        if (failure) return settled();
        const submit: Promise<void> = submitOne(ctx, submitter, wallet, row, inDoubt)
          .then(
            (wait) => {
              if (wait && (!waiting || wait.afterMs < waiting.afterMs)) waiting = wait;
            },
            (error: unknown) => {
              failure ??= { error };
            },
          )
          .finally(() => inFlight.delete(submit));
        inFlight.add(submit);
      }
    },
  };
}

/** The prepared rows become `processing` with their gas limits and fees, before anything is sent. */
async function claim(
  ctx: RoundContext,
  prepared: Exclude<Awaited<ReturnType<typeof prepareRound>>, undefined | typeof PRICED_OUT>,
): Promise<SubmitRow[]> {
  if (prepared.ready.length === 0) return [];
  const headroom = BigInt(100 + ctx.settings.gasHeadroomPercent);
  return markCustodianClaimed<SubmitRow>(
    ctx.db,
    prepared.ready.map((r) => ({ id: r.id, gas: ((r.gas * headroom) / 100n).toString() })),
    {
      maxFeePerGas: prepared.fees.maxFeePerGas.toString(),
      maxPriorityFeePerGas: prepared.fees.maxPriorityFeePerGas.toString(),
    },
    submitRowColumns('t'),
  );
}

/** Submits one row and records its outcome; answers why and for how long it must wait, if it must. */
async function submitOne(
  ctx: RoundContext,
  submitter: Submitter,
  wallet: SystemWalletRecord,
  row: SubmitRow,
  inDoubt: boolean,
): Promise<Wait | undefined> {
  const { db, target } = ctx;
  const call: CustodyCall = {
    rowId: row.id,
    custodyRef: wallet.custodyRef ?? '',
    networkId: target.networkId,
    to: row.to,
    data: row.data,
    value: BigInt(row.value),
    gasLimit: BigInt(row.gas),
    maxFeePerGas: BigInt(row.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(row.maxPriorityFeePerGas),
    keyAttempt: row.keyAttempt,
    inDoubt,
  };
  const outcome: SubmitOutcome = await submitter.submit(call);
  if (outcome.kind === 'submitted') {
    await applyCustodianView(db, row.id, submitter.provider, outcome.view);
    return undefined;
  }
  if (outcome.kind === 'refused') {
    await markCustodianRefused(db, row.id, outcome.message);
    return undefined;
  }
  const message = `Waiting to reach ${submitter.provider}: ${outcome.message}`;
  await db.query(
    `UPDATE transactions SET custody_key_attempt = custody_key_attempt + $2, error_message = $3,
       updated_at = clock_timestamp()
      WHERE id = $1 AND status = 'processing' AND custody_id IS NULL`,
    [row.id, outcome.newKey ? 1 : 0, message],
  );
  return { message, afterMs: outcome.afterMs };
}
