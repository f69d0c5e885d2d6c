import type { Address } from 'viem';
import type { Db } from '#api/db/db.ts';
import { markFundsTimedOut } from './lifecycle.ts';
import type { WalletNetwork } from './senders.ts';
import type { TransactionSettings } from './settings.ts';

/** What a round's rows may spend: the wallet's balance, less what its transactions in flight may still spend. */
export interface Funds {
  address: Address;
  balance: bigint;
  /** At most what the wallet's sent, unmined transactions spend: value + gas limit × fee cap each. */
  reserved: bigint;
}

/**
 * What the wallet's transactions in flight may still spend (wei): those at or above its mined nonce (`minedNonce`,
 * the chain's transaction count at the latest block). Below it they are mined, and the balance has paid for them
 * already, whether or not the monitor has recorded their receipts yet.
 */
export async function reservedInFlight(
  db: Pick<Db, 'query'>,
  target: WalletNetwork,
  minedNonce: number,
): Promise<bigint> {
  const { rows } = await db.query<{ wei: string }>(
    `SELECT coalesce(sum(coalesce(value, 0) + coalesce(gas_limit, 0) * coalesce(gas_price, 0)), 0)::text AS wei
       FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('processing', 'broadcasted', 'cancelling')
        AND nonce >= $3`,
    [target.walletId, target.networkId, minedNonce],
    'funds-reserved-in-flight',
  );
  return BigInt(rows[0]?.wei ?? '0');
}

const FUNDS_SHORT = `UPDATE transactions SET error_message = $2,
     funds_short_since = coalesce(funds_short_since, clock_timestamp()), updated_at = clock_timestamp()
   WHERE id = $1 AND status = 'created'
   RETURNING (extract(epoch FROM clock_timestamp() - funds_short_since) * 1000)::bigint AS "shortForMs"`;

/**
 * A `created` row whose wallet cannot pay for it now: its `errorMessage` says why, and it waits (no status change).
 * Answers how long it has been waiting for funds (ms), or undefined when it is no longer `created`.
 */
async function markFundsShort(db: Pick<Db, 'query'>, id: string, message: string): Promise<number | undefined> {
  const { rows } = await db.query<{ shortForMs: string }>(FUNDS_SHORT, [id, message]);
  return rows[0] ? Number(rows[0].shortForMs) : undefined;
}

/**
 * A row its wallet cannot pay for: it stays `created` with an `errorMessage` that names the wallet, its balance and
 * what the row needs; after WAIT_FOR_FUNDS_SECONDS of this, it ends `broadcast-failed` with the same words.
 */
export async function waitForFunds(
  db: Pick<Db, 'query'>,
  settings: TransactionSettings,
  id: string,
  funds: Funds,
  needs: string,
): Promise<void> {
  const holds =
    funds.reserved > 0n
      ? `holds ${funds.balance} wei, of which its transactions in flight may spend ${funds.reserved}`
      : `holds ${funds.balance} wei`;
  const seconds = Math.round(settings.waitForFundsMs / 1000);
  const why = `wallet ${funds.address} ${holds}; this transaction needs ${needs}`;
  const waitedMs = await markFundsShort(
    db,
    id,
    `Waiting for funds: ${why}. It is sent once the wallet holds enough, or fails after ${seconds} s (WAIT_FOR_FUNDS_SECONDS)`,
  );
  if (waitedMs !== undefined && waitedMs >= settings.waitForFundsMs) {
    await markFundsTimedOut(db, id, `Not sent: for ${seconds} s (WAIT_FOR_FUNDS_SECONDS) the ${why}`);
  }
}

/** A node's answer that the sender cannot pay (an estimate of a call whose value is above the balance). */
export function isInsufficientFunds(answer: string): boolean {
  return /insufficient funds/i.test(answer);
}
