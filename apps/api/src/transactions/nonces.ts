import type { Queryable } from '#api/db/db.ts';
import type { WalletNetwork } from './senders.ts';

/**
 * Nonces of one (wallet, network), allocated inside the caller's database transaction.
 *
 * `wallet_nonces.next_nonce` is the next fresh nonce. When it is NULL (first use, or after a failure released a
 * nonce, or the chain said "nonce too low") it is resynchronised: from the chain's pending count, the nonces our
 * transactions hold, and the holes between the two (released nonces), which are handed out first. So a failure
 * never leaves a gap behind, and the unique index on (wallet, network, nonce) makes two transactions with one nonce
 * impossible.
 */
export async function allocateNonces(
  tx: Queryable,
  target: WalletNetwork,
  count: number,
  chainPendingNonce: () => Promise<number>,
): Promise<number[]> {
  await tx.query(
    `INSERT INTO wallet_nonces (system_wallet_id, network_id, next_nonce) VALUES ($1, $2, NULL)
     ON CONFLICT DO NOTHING`,
    [target.walletId, target.networkId],
  );
  const { rows } = await tx.query<{ next: number | null }>(
    `SELECT next_nonce AS next FROM wallet_nonces WHERE system_wallet_id = $1 AND network_id = $2 FOR UPDATE`,
    [target.walletId, target.networkId],
  );
  let holes: number[] = [];
  let next = rows[0]?.next ?? null;
  if (next === null) {
    const resynced = await resync(tx, target, await chainPendingNonce());
    holes = resynced.holes;
    next = resynced.next;
  }
  const nonces = holes.slice(0, count);
  while (nonces.length < count) nonces.push(next++);
  // Holes left over: stay in "resync" mode so the next allocation finds them again.
  const stored = holes.length > count ? null : next;
  await tx.query(
    `UPDATE wallet_nonces SET next_nonce = $3, updated_at = now() WHERE system_wallet_id = $1 AND network_id = $2`,
    [target.walletId, target.networkId, stored],
  );
  return nonces;
}

/** Holes between the chain's pending nonce and the highest nonce we hold, and the next fresh nonce. */
export async function resync(
  tx: Queryable,
  target: WalletNetwork,
  chainNonce: number,
): Promise<{ holes: number[]; next: number }> {
  const { rows } = await tx.query<{ held: number | null }>(
    `SELECT max(nonce) AS held FROM transactions WHERE system_wallet_id = $1 AND network_id = $2 AND nonce IS NOT NULL`,
    [target.walletId, target.networkId],
  );
  const held = rows[0]?.held ?? null;
  if (held === null || held < chainNonce) return { holes: [], next: chainNonce };
  const { rows: holes } = await tx.query<{ n: number }>(
    `SELECT n FROM generate_series($3::bigint, $4::bigint) AS n
     WHERE NOT EXISTS (SELECT 1 FROM transactions t
                       WHERE t.system_wallet_id = $1 AND t.network_id = $2 AND t.nonce = n)
     ORDER BY n`,
    [target.walletId, target.networkId, chainNonce, held],
  );
  return { holes: holes.map((h) => Number(h.n)), next: held + 1 };
}

/** Forgets the next nonce: the next allocation resynchronises (after a release or "nonce too low"). */
export async function invalidateNonce(tx: Queryable, target: WalletNetwork): Promise<void> {
  await tx.query(
    `UPDATE wallet_nonces SET next_nonce = NULL, updated_at = now() WHERE system_wallet_id = $1 AND network_id = $2`,
    [target.walletId, target.networkId],
  );
}
