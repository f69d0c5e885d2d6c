import type { Address, Hex, PublicClient } from 'viem';
import type { Db } from '#api/db/db.ts';
import { rebroadcast } from './followCanonical.ts';
import { invalidateNonce } from './nonces.ts';
import type { WalletChain, WalletNetwork } from './senders.ts';

/**
 * Nonce truth from the chain. The node's pending nonce is the wallet's mined count plus the transactions its pool
 * holds in sequence; a broadcast transaction at or above it that was sent a while ago is not in the pool (a pool
 * that dropped it, a node restarted without its state, a broadcast lost on the way): its signed bytes are sent
 * again, in nonce order. When no transaction of ours holds the pool's next nonce (a nonce released by a failure),
 * every later one waits behind the hole: the sender is asked to fill it (`fillHoles`).
 */
export async function repairDropped(
  db: Db,
  client: PublicClient,
  target: WalletNetwork & Pick<WalletChain, 'devChain'>,
  address: Address,
  options: { resendDroppedAfterMs: number; fillHoles: () => Promise<void> },
): Promise<number> {
  // Only transactions sent a while ago can be missing: without any, the node is not asked.
  const { rows: old } = await db.query(
    `SELECT 1 FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('broadcasted', 'cancelling')
        AND broadcasted_at < clock_timestamp() - $3 * interval '1 millisecond' LIMIT 1`,
    [target.walletId, target.networkId, options.resendDroppedAfterMs],
  );
  if (old.length === 0) return 0;
  const pending = await client.getTransactionCount({ address, blockTag: 'pending' });
  const { rows } = await db.query<{ id: string; nonce: number; raw: Hex | null }>(
    `SELECT id, nonce, raw_transaction AS raw FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('broadcasted', 'cancelling') AND nonce >= $3
        AND broadcasted_at < clock_timestamp() - $4 * interval '1 millisecond'
      ORDER BY nonce LIMIT 64`,
    [target.walletId, target.networkId, pending, options.resendDroppedAfterMs],
  );
  if (rows.length === 0) return 0;
  if (Number(rows[0]?.nonce) > pending) {
    const { rows: holders } = await db.query(
      'SELECT 1 FROM transactions WHERE system_wallet_id = $1 AND network_id = $2 AND nonce = $3',
      [target.walletId, target.networkId, pending],
    );
    if (holders.length === 0) {
      await invalidateNonce(db.pool, target);
      await options.fillHoles();
    }
  }
  const resent = rows.filter((row) => row.raw !== null);
  if (resent.length > 0) await target.devChain.ensureFunds(address);
  for (const row of resent) await rebroadcast(client, row.raw as Hex);
  if (resent.length > 0) {
    await db.query(
      'UPDATE transactions SET broadcasted_at = clock_timestamp() WHERE id = ANY($1::uuid[]) AND status = ANY($2)',
      [resent.map((r) => r.id), ['broadcasted', 'cancelling']],
    );
  }
  return resent.length;
}
