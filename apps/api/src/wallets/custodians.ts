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
