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

/** A registry entry, and its configuration's name, settings and client (never for a custody without one). */
type Entry = (typeof CUSTODIANS)[WalletType];
type NameOf<E> = E extends Custodian<infer Name, unknown, unknown> ? Name : never;
type SettingsOf<E> = E extends Custodian<string, infer Settings, unknown> ? Settings : never;
type ClientOf<E> = E extends Custodian<string, unknown, infer Client> ? Client : never;

/** The custodians a deployment has credentials for, besides its mnemonic (one client each, shared by the process). */
export type RemoteCustodians = { readonly [E in Entry as NameOf<E>]?: ClientOf<E> };

/**
 * The settings of the custodians a deployment may have credentials for (a `Config`'s fields, by the name of the
 * custodian's client in `RemoteCustodians`): each is read by its entry's `configuration.settings`.
 */
export type RemoteCustodianSettings = { readonly [E in Entry as NameOf<E>]: SettingsOf<E> | undefined };

/** Every wallet type, the default (from-mnemonic) first. */
export const WALLET_TYPES = Object.keys(CUSTODIANS) as WalletType[];

/** A project's wallet type when it names none. */
export const DEFAULT_WALLET_TYPE: WalletType = 'from-mnemonic';

export function custodianOf(type: WalletType): Custodian {
  return CUSTODIANS[type];
}

/** A custodian's own client among the deployment's (undefined without its credentials, or for the mnemonic). */
export function clientOf(custodian: Custodian, remote: RemoteCustodians): unknown {
  const name = custodian.configuration?.name;
  return name === undefined ? undefined : (remote as Readonly<Record<string, unknown>>)[name];
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
