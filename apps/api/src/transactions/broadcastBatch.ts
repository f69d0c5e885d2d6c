import type { Address, Hex, LocalAccount, PublicClient } from 'viem';
import { isUnreachable, shortError } from '#api/chain/chainErrors.ts';
import { keccakOfHex } from '#api/chain/keccak.ts';
import { RPC_BATCH_SIZE } from '#api/chain/rpcBatches.ts';
import type { Db } from '#api/db/db.ts';
import { signsRandomized } from '#api/wallets/custody.ts';
import { markNodeRefused, markSendLater, markSent } from './lifecycle.ts';
import { invalidateNonce } from './nonces.ts';
import type { WalletNetwork } from './senders.ts';
import { signEip1559 } from './signing.ts';

/**
 * Keeps the bytes signed for `processing` rows before they are broadcast: their signer would sign them differently
 * next time, and a row resumed after a crash must go out as the transaction that may already be in the pool.
 */
async function keepSignedBytes(db: Db, rows: SignedRow[], raws: Hex[]): Promise<void> {
  const fresh = rows.flatMap((row, i) => (row.raw ? [] : [{ id: row.id, raw: raws[i] as Hex }]));
  if (fresh.length === 0) return;
  await db.query(
    `UPDATE transactions t SET raw_transaction = v.raw
       FROM unnest($1::uuid[], $2::text[]) AS v(id, raw)
      WHERE t.id = v.id AND t.status = 'processing'`,
    [fresh.map((r) => r.id), fresh.map((r) => r.raw)],
  );
}

/** keepSignedBytes of the rows of a batch whose signature came. */
function keepFulfilled(db: Db, batch: SignedRow[], results: PromiseSettledResult<Hex>[]): Promise<void> {
  const done = batch.flatMap((row, k) => {
    const result = results[k] as PromiseSettledResult<Hex>;
    return result.status === 'fulfilled' ? [{ row, raw: result.value }] : [];
  });
  return keepSignedBytes(
    db,
    done.map((d) => d.row),
    done.map((d) => d.raw),
  );
}

/** A transaction with its nonce, gas limit and fees fixed: signing it again gives the same bytes and hash. */
export interface SignedRow {
  id: string;
  to: Address;
  data: Hex;
  /** Wei, as a decimal string. */
  value: string;
  nonce: number;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  /** The bytes signed for it before, kept when its signer's signatures differ each time (signsRandomized). */
  raw?: Hex | null;
}

type Outcome =
  | { kind: 'sent' }
  | { kind: 'unreachable'; error: unknown }
  | { kind: 'refused'; error: unknown }
  /** Back to `created`; `pause`: not before a while (the node said "not now"). */
  | { kind: 'later'; pause: boolean };

/**
 * Refusals that say "not now" rather than "never": the base fee rose above the fee cap the transaction was just
 * signed with, or the pool holds all it takes from this sender (geth's per-account slots, a provider's limit).
 */
const NOT_NOW = /max fee per gas less than block base fee|fee cap less than block base fee|txpool is full/i;

/**
 * Signs and broadcasts transactions in nonce order and records what happened to each:
 * - accepted (or "already known": our identical bytes are in the pool) → broadcasted, with its hash
 * - "nonce too low" → if our hash has a receipt it was ours (a sender died after sending); otherwise another
 *   transaction took the nonce: back to `created` for a new nonce, and the nonce is resynchronised
 * - "max fee per gas less than block base fee" or "txpool is full" → back to `created`, to be priced and sent
 *   again after a pause; the nonce is resynchronised
 * - refused for another reason → broadcast-failed with the node's message; the nonce is released
 * - RPC unreachable → stays `processing` with its nonce, and the error is rethrown so the job retries later.
 * Returns how many are now broadcasted, and whether the sender should pause before sending again.
 */
export async function broadcastBatch(
  sender: { db: Db; target: WalletNetwork; client: PublicClient; account: LocalAccount },
  rows: SignedRow[],
): Promise<{ sent: number; pause: boolean }> {
  const { db, target, client, account } = sender;
  const signed: Hex[] = [];
  const hashes: Hex[] = [];
  const send = async (i: number): Promise<Outcome> => {
    try {
      await client.sendRawTransaction({ serializedTransaction: signed[i] as Hex });
      return { kind: 'sent' };
    } catch (error) {
      if (isUnreachable(error)) return { kind: 'unreachable', error };
      const text = `${shortError(error)} ${(error as { details?: string }).details ?? ''}`;
      if (/already known|already imported|known transaction/i.test(text)) return { kind: 'sent' };
      if (/nonce too low|nonce has already been used/i.test(text)) {
        const receipt = await client.getTransactionReceipt({ hash: hashes[i] as Hex }).catch(() => undefined);
        if (receipt) return { kind: 'sent' };
        return { kind: 'later', pause: false };
      }
      if (NOT_NOW.test(text)) return { kind: 'later', pause: true };
      return { kind: 'refused', error };
    }
  };
  // In nonce order, one JSON-RPC batch at a time (calls made in one tick share a batch, which the node takes in
  // order): concurrent batches can reach the node out of order, and a node that sees nonce n+1 before n queues it
  // (anvil then sometimes never promotes it, and its automine stalls behind it).
  // A batch's transactions are signed concurrently (their nonces are fixed already). A local key signs the next
  // batch while the node takes the previous one. A key service answers each signature in tens of milliseconds, so
  // a remote signer (signsRandomized) is asked for the whole round's signatures at once (its account bounds how
  // many requests are in flight, in nonce order), and each batch is sent as soon as it and the batches before it
  // are signed. A signature that fails stops the round: what was sent is recorded, the rest stay `processing` with
  // their nonces for the next run, and the error reaches the sender.
  const keepSigned = signsRandomized(account);
  const sign = (row: SignedRow) => (row.raw ? Promise.resolve(row.raw) : signEip1559(account, target.networkId, row));
  const batches: SignedRow[][] = [];
  for (let start = 0; start < rows.length; start += RPC_BATCH_SIZE)
    batches.push(rows.slice(start, start + RPC_BATCH_SIZE));
  // The signatures of a remote signer's round, all asked for now; settled, so none is left unhandled.
  const early = keepSigned ? batches.map((batch) => Promise.allSettled(batch.map(sign))) : undefined;
  const outcomes: Outcome[] = [];
  let inFlight: Promise<Outcome[]> | undefined;
  let signingError: unknown;
  let next = 0;
  for (; next < batches.length; next++) {
    const batch = batches[next] as SignedRow[];
    const start = next * RPC_BATCH_SIZE;
    const results = await (early?.[next] ?? Promise.allSettled(batch.map(sign)));
    // Kept even past a failure: those rows are sent next run as signed now, not signed a second time.
    if (keepSigned) await keepFulfilled(db, batch, results);
    const failed = results.findIndex((r) => r.status === 'rejected');
    const ready = failed === -1 ? results.length : failed;
    for (const result of results.slice(0, ready)) {
      const raw = (result as PromiseFulfilledResult<Hex>).value;
      signed.push(raw);
      hashes.push(keccakOfHex(raw));
    }
    if (inFlight) outcomes.push(...(await inFlight));
    inFlight = Promise.all(batch.slice(0, ready).map((_, k) => send(start + k)));
    if (failed !== -1) {
      signingError = (results[failed] as PromiseRejectedResult).reason;
      break;
    }
  }
  if (inFlight) outcomes.push(...(await inFlight));
  // A failure left later batches of a remote signer signing: their signatures are kept too once they are in.
  if (early) {
    for (let k = next + 1; k < batches.length; k++) {
      await keepFulfilled(db, batches[k] as SignedRow[], await (early[k] as Promise<PromiseSettledResult<Hex>[]>));
    }
  }

  const sent = rows.flatMap((row, i) =>
    outcomes[i]?.kind === 'sent' ? [{ id: row.id, hash: hashes[i] as Hex, raw: signed[i] as Hex }] : [],
  );
  const later = rows.filter((_, i) => outcomes[i]?.kind === 'later').map((row) => row.id);
  const refused = rows.flatMap((row, i) => {
    const outcome = outcomes[i];
    return outcome?.kind === 'refused'
      ? [{ id: row.id, message: `The node refused the transaction: ${shortError(outcome.error)}` }]
      : [];
  });
  await db.transaction(async (tx) => {
    await markSent(tx, sent);
    await markSendLater(tx, later);
    await markNodeRefused(tx, refused);
    if (later.length > 0 || refused.length > 0) await invalidateNonce(tx, target);
  });
  const unreachable = outcomes.find((o) => o?.kind === 'unreachable');
  if (unreachable && unreachable.kind === 'unreachable') throw unreachable.error;
  if (signingError !== undefined) throw signingError;
  return { sent: sent.length, pause: outcomes.some((o) => o?.kind === 'later' && o.pause) };
}
