import { createHash } from 'node:crypto';
import type { Address } from 'viem';
import type { Db } from '#api/db/db.ts';
import { validationError } from '#api/errors/ApiError.ts';
import type { NetworkType } from '#api/wallets/custodian.ts';
import type { WalletType } from '#api/wallets/custodians.ts';

/** The wallet a transaction is sent from. */
export interface ChosenWallet {
  id: number;
  address: Address;
  type: WalletType;
}

/** What the choice of a transaction's wallet is made from. */
export interface WalletChoice {
  projectId: number;
  networkId: number;
  networkType: NetworkType;
  /** The project's primary wallet of the network type (`mSystemWalletMainnet`/`Testnet`). */
  primary: ChosenWallet;
  /** How many wallets the project's pool of the network type has (1 without add-system-wallets, or shared). */
  poolSize: number;
  /** `mSystemWalletId`: a wallet of the pool, named. */
  pinned?: number;
  /** `orderingKey`: rows of one key go through one wallet, in acceptance order. */
  orderingKey?: string;
  /** The wallet of the transaction this one waits for (`afterTransactionId`): a step goes through it. */
  predecessorWallet?: number;
}

/**
 * Unfinished rows counted per wallet when the least loaded is looked for: past this, wallets are equally loaded
 * (each has rounds of work queued), and the choice among them is at random. Bounds the look to pool × this.
 */
const LOAD_COUNTED_UP_TO = 64;

const WALLET_COLUMNS = 'w.id, w.address, w.type';

/**
 * The wallet of a new transaction: the named one (`mSystemWalletId`, which must be of the project's pool of the
 * network type); the one its ordering key's latest row took, or for a new key the pool's wallet its hash names (so
 * concurrent first rows of a key agree); the wallet of the step it waits for; otherwise the wallet of the pool with
 * the fewest unfinished rows (created, processing, broadcasted, cancelling), at random among equals. A pool of one
 * is its primary wallet, without a look.
 */
export async function chooseWallet(db: Db, choice: WalletChoice): Promise<ChosenWallet> {
  const { projectId, networkId, networkType, primary, poolSize } = choice;
  if (choice.pinned !== undefined) {
    if (choice.pinned === primary.id) return primary;
    const pinned = await poolWallet(db, choice, 'AND w.id = $3', [choice.pinned]);
    if (pinned) return pinned;
    throw validationError([
      {
        field: 'body.mSystemWalletId',
        message: `is not a ${networkType} system wallet of project ${projectId} (get-project-detail lists its wallets in mSystemWallets)`,
      },
    ]);
  }
  if (poolSize <= 1) return primary;
  if (choice.orderingKey !== undefined) {
    const { rows } = await db.query<ChosenWallet>(
      `SELECT ${WALLET_COLUMNS} FROM transactions t JOIN system_wallets w ON w.id = t.system_wallet_id
        WHERE t.project_id = $1 AND t.network_id = $2 AND t.ordering_key = $3
        ORDER BY t.created_at DESC LIMIT 1`,
      [projectId, networkId, choice.orderingKey],
      'execute-ordering-key-wallet',
    );
    if (rows[0]) return rows[0];
    const position = createHash('sha256').update(choice.orderingKey).digest().readUInt32BE(0) % poolSize;
    const named = await poolWallet(db, choice, 'ORDER BY w.pool_position OFFSET $3 LIMIT 1', [position]);
    return named ?? primary;
  }
  if (choice.predecessorWallet !== undefined) {
    const same = await poolWallet(db, choice, 'AND w.id = $3', [choice.predecessorWallet]);
    if (same) return same;
  }
  const { rows } = await db.query<ChosenWallet>(
    `SELECT ${WALLET_COLUMNS} FROM system_wallets w
      CROSS JOIN LATERAL (
        SELECT count(*) AS n FROM (
          SELECT 1 FROM transactions t
           WHERE t.system_wallet_id = w.id AND t.network_id = $3
             AND t.status IN ('created', 'processing', 'broadcasted', 'cancelling')
           LIMIT ${LOAD_COUNTED_UP_TO}) unfinished
      ) load
      WHERE w.project_id = $1 AND w.network_type = $2
      ORDER BY load.n, random() LIMIT 1`,
    [projectId, networkType, networkId],
    'execute-least-loaded-wallet',
  );
  return rows[0] ?? primary;
}

/** The first wallet of the project's pool of the network type that `rest` picks (its parameters from $3), or undefined. */
async function poolWallet(
  db: Db,
  choice: WalletChoice,
  rest: string,
  params: unknown[],
): Promise<ChosenWallet | undefined> {
  const { rows } = await db.query<ChosenWallet>(
    `SELECT ${WALLET_COLUMNS} FROM system_wallets w WHERE w.project_id = $1 AND w.network_type = $2 ${rest}`,
    [choice.projectId, choice.networkType, ...params],
  );
  return rows[0];
}
