import { awsKmsCustodian } from './awsKms/custodian.ts';
import type { Custodian } from './custodian.ts';
import { fireblocksCustodian } from './fireblocks/custodian.ts';
import { fromMnemonicCustodian } from './fromMnemonic/custodian.ts';

/**
 * The custodians, one per wallet type (DESIGN §6): what `projects/`, the CLI, the sender and the answers ask instead
 * of comparing a wallet's type with a custodian's name. A custodian is one folder of `wallets/` and one line here.
 */
export const CUSTODIANS = {
  'from-mnemonic': fromMnemonicCustodian,
  fireblocks: fireblocksCustodian,
  'aws-kms': awsKmsCustodian,
} satisfies Record<string, Custodian>;

export type WalletType = keyof typeof CUSTODIANS;

/** Every wallet type, the default (from-mnemonic) first. */
export const WALLET_TYPES = Object.keys(CUSTODIANS) as WalletType[];

/** A project's wallet type when it names none. */
export const DEFAULT_WALLET_TYPE: WalletType = 'from-mnemonic';

export function custodianOf(type: WalletType): Custodian {
  return CUSTODIANS[type];
}

/** The wallet types whose custodian signs and broadcasts itself (a transaction's `custody.provider`). */
export const SUBMITTER_TYPES = WALLET_TYPES.filter((type) => 'submitter' in custodianOf(type).sends);

/**
 * A wallet row's custody view (a `SystemWallet`'s `custody`), as SQL: the view of the custodian whose column the
 * row `alias` has set, or null.
 */
export function custodyViewSql(alias: string): string {
  const arms = WALLET_TYPES.flatMap((type) => {
    const { refColumn, view } = custodianOf(type);
    return view ? [`WHEN ${alias}.${refColumn} IS NOT NULL THEN ${view.sql(alias)}`] : [];
  });
  return `CASE ${arms.join(' ')} END`;
}

/** The custodians whose wallets have a reference at the custodian (a vault account, a key): those with a view. */
const REFERENCED_TYPES = WALLET_TYPES.filter((type) => custodianOf(type).view !== null);

/** A wallet row's reference at its custodian (a `CustodyWallet`'s `custodyRef`), as SQL: null for from-mnemonic. */
export function custodyRefSql(alias?: string): string {
  const column = (type: WalletType) => (alias ? `${alias}.` : '') + custodianOf(type).refColumn;
  return `coalesce(${REFERENCED_TYPES.map(column).join(', ')})`;
}

/**
 * A wallet row's references in list-projects' wallets, as the arguments of a `json_build_object(…)`: each custodian's
 * `listingKey` and its column, in the registry's order.
 */
export function listingRefsSql(alias: string): string {
  return WALLET_TYPES.flatMap((type) => {
    const { listingKey, refColumn } = custodianOf(type);
    return listingKey ? [`'${listingKey}', ${alias}.${refColumn}`] : [];
  }).join(', ');
}
