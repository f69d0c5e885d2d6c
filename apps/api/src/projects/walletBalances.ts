import type { Address } from 'viem';
import { shortError } from '#api/chain/chainErrors.ts';
import type { Chains } from '#api/chain/chains.ts';
import { DEFAULT_LOW_BALANCE_WEI, NETWORKS, type NetworkId } from '#api/config/networks.ts';
import type { Db } from '#api/db/db.ts';

/** How long a balance read waits for the network's RPC before the answer says it could not be read. */
export const BALANCE_TIMEOUT_MS = 3_000;
/** A balance read less than this long ago is answered again: a console refreshing does not cost an RPC call each. */
export const BALANCE_CACHE_MS = 5_000;
const CACHE_LIMIT = 10_000;

export interface WalletBalance {
  systemWalletId: number;
  address: string;
  networkId: NetworkId;
  /** Wei, as a decimal string; null when the network could not be read (see `error`). */
  balance: string | null;
  error: string | null;
  /** LOW_BALANCE_WEI_<networkId>, in wei; null when the network has none (0 turns it off). */
  lowBalanceThreshold: string | null;
  /** The balance was read and is under the threshold. */
  low: boolean;
  /** The wallet's transactions on the network sent and not mined yet (processing, broadcasted, cancelling). */
  inFlight: number;
  /** Its transactions waiting to be sent (created). */
  waiting: number;
}

type Read = { at: number; answer: Promise<{ balance: string | null; error: string | null }> };
const caches = new WeakMap<Chains, Map<string, Read>>();

/**
 * The native-coin balance of each of the project's system wallets (its pools'), with the low-balance threshold
 * and the wallet's transactions in flight and waiting, on every network of its type that this
 * deployment has an RPC URL for, at the latest block. At most one read per (network, address) every
 * BALANCE_CACHE_MS, each bounded by BALANCE_TIMEOUT_MS; a network that does not answer gives a null balance and
 * its error, never a failed request.
 */
export async function walletBalances(
  db: Db,
  chains: Chains,
  projectId: number,
  lowBalanceWei: Readonly<Partial<Record<NetworkId, bigint>>> = DEFAULT_LOW_BALANCE_WEI,
): Promise<WalletBalance[]> {
  const { rows } = await db.query<{ id: number; address: string; networkType: string }>(
    `SELECT w.id, w.address, w.network_type AS "networkType"
       FROM projects p
       JOIN system_wallets w ON w.id IN (p.wallet_mainnet_id, p.wallet_testnet_id) OR w.project_id = p.id
      WHERE p.id = $1 ORDER BY w.network_type, w.pool_position NULLS FIRST, w.id`,
    [projectId],
  );
  const configured = new Set(chains.configured());
  const wanted = rows.flatMap((wallet) =>
    NETWORKS.filter((n) => n.networkType === wallet.networkType && configured.has(n.id)).map((n) => ({
      wallet,
      networkId: n.id as NetworkId,
    })),
  );
  const { rows: counts } = await db.query<{ walletId: number; networkId: number; inFlight: number; waiting: number }>(
    `SELECT system_wallet_id AS "walletId", network_id AS "networkId",
            count(*) FILTER (WHERE status <> 'created')::int AS "inFlight",
            count(*) FILTER (WHERE status = 'created')::int AS waiting
       FROM transactions
      WHERE system_wallet_id = ANY($1::int[]) AND status IN ('created', 'processing', 'broadcasted', 'cancelling')
      GROUP BY system_wallet_id, network_id`,
    [rows.map((wallet) => wallet.id)],
  );
  const countOf = (walletId: number, networkId: number) =>
    counts.find((c) => c.walletId === walletId && c.networkId === networkId) ?? { inFlight: 0, waiting: 0 };
  return Promise.all(
    wanted.map(async ({ wallet, networkId }) => {
      const read = await cachedRead(chains, networkId, wallet.address as Address);
      const threshold = lowBalanceWei[networkId];
      const { inFlight, waiting } = countOf(wallet.id, networkId);
      return {
        systemWalletId: wallet.id,
        address: wallet.address,
        networkId,
        ...read,
        lowBalanceThreshold: threshold === undefined ? null : threshold.toString(),
        low: threshold !== undefined && read.balance !== null && BigInt(read.balance) < threshold,
        inFlight,
        waiting,
      };
    }),
  );
}

function cachedRead(chains: Chains, networkId: NetworkId, address: Address): Read['answer'] {
  const cache = caches.get(chains) ?? new Map<string, Read>();
  caches.set(chains, cache);
  const key = `${networkId}:${address}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < BALANCE_CACHE_MS) return hit.answer;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  const answer = readBalance(chains, networkId, address);
  cache.set(key, { at: Date.now(), answer });
  return answer;
}

async function readBalance(chains: Chains, networkId: NetworkId, address: Address): Read['answer'] {
  let timer: NodeJS.Timeout | undefined;
  try {
    const balance = await Promise.race([
      chains.client(networkId).getBalance({ address, blockTag: 'latest' }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the RPC endpoint did not answer within ${BALANCE_TIMEOUT_MS / 1000} s`)),
          BALANCE_TIMEOUT_MS,
        );
      }),
    ]);
    return { balance: balance.toString(), error: null };
  } catch (error) {
    return { balance: null, error: `The balance could not be read: ${shortError(error)}` };
  } finally {
    clearTimeout(timer);
  }
}
