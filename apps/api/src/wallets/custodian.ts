import type { TSchema } from 'typebox';
import type { LocalAccount } from 'viem';
import type { NetworkId } from '#api/config/networks.ts';
import type { VariableDefinition } from '#api/config/parse.ts';
import type { Db } from '#api/db/db.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import type { Submitter } from './custody.ts';
import type { WalletAddresses, WalletKeys } from './fromMnemonic/walletKeys.ts';

export type NetworkType = 'mainnet' | 'testnet';
export type OwnerType = 'shared' | 'dedicated';

/** What a custodian's settings are read from: the environment, and where the configuration is loaded. */
export interface SettingsContext {
  readonly env: Record<string, string | undefined>;
  /** NODE_ENV: a development install may use the simulator `npm start` runs, when it has no credentials of its own. */
  readonly nodeEnv: string;
  readonly production: boolean;
  readonly dataDir: string;
}

/**
 * What a custodian works with: the deployment's mnemonic (its keys to sign, or only its addresses to make wallets),
 * and its own client when the deployment has credentials.
 */
export interface CustodyClients<Client = unknown, Keys extends WalletAddresses = WalletKeys> {
  keys: Keys;
  client: Client | undefined;
}

/** Raised when a custody type is chosen that this deployment has no credentials for. */
export class WalletProviderNotConfiguredError extends BaseError {
  override name = 'WalletProviderNotConfiguredError';
  readonly code = 'CUSTODY_NOT_CONFIGURED';
}

/** A system wallet as its custodian needs it to sign or submit. */
export interface CustodyWallet {
  id: number;
  address: string;
  derivationIndex: number | null;
  /** The wallet at its custodian: a Fireblocks vault account id, an AWS KMS key ARN; null for from-mnemonic. */
  custodyRef: string | null;
}

/** A new project's wallets as its custodian asks for them. */
export interface ProvisionRequest {
  /** Outside the project's transaction for a custodian with `undo`, inside it for one without. */
  db: Pick<Db, 'query'>;
  /** The reserved project id (a custodian with `undo`), or undefined (the project's id comes with its row). */
  projectId: number | undefined;
  projectName: string;
  ownerType: OwnerType;
  /** An existing key for both wallets, for a custodian that `adoptsKey`. */
  kmsKeyId?: string;
  /** What an earlier run of the same creation recorded as made (by network type): it resumes with those. */
  made(): Promise<Partial<Record<NetworkType, string>>>;
  /** Records a reference the moment the custodian made it, so that a run again after a crash resumes with it. */
  record(networkType: NetworkType, ref: string): Promise<void>;
}

/**
 * More wallets of one network type for a project's pool (add-system-wallets). Asked inside the transaction that
 * holds the project's row: the positions are the pool's next ones, and a custodian outside the database names each
 * wallet by its position, so a run again after a failure finds what an earlier run made instead of making it twice.
 */
export interface PoolRequest {
  db: Pick<Db, 'query'>;
  projectId: number;
  projectName: string;
  networkType: NetworkType;
  /** The pool positions to make, in order (the primary wallet is position 0). */
  positions: readonly number[];
}

/** One wallet to insert: its address, and its reference in the custodian's column (`refColumn`). */
export interface NewWallet {
  address: string;
  ref: string | number;
}

/** What a failed provision leaves behind. */
export interface ProvisioningFailure {
  /** Refused for good: the reservation ends and nothing is left behind. Otherwise it is kept for a run again. */
  refused: boolean;
  /** What a run again resumes with ("the same vault account"), when the failure may pass; said in the message. */
  resumesWith?: string;
}

/**
 * One wallet type's custody (DESIGN §6): everything the platform does differently for it. The registry
 * (`custodians.ts`) holds one per wallet type; nothing outside `wallets/` asks which custodian a wallet has. `Name`,
 * `Settings` and `Client` are its configuration's (`never` for a custody without one): the registry derives the
 * deployment's settings (`Config`'s fields) and clients (`RemoteCustodians`) from them.
 */
export interface Custodian<Name extends string = string, Settings = unknown, Client = unknown> {
  /** The wallet type: `system_wallets.type`, a `SystemWallet`'s `type`, `--wallet-type`. */
  readonly type: string;
  /** The `system_wallets` column that holds a wallet's reference at the custodian (`NewWallet.ref`). */
  readonly refColumn: string;
  /** The credentials it needs, or null for a custody every deployment has (its mnemonic). */
  readonly configuration: {
    /**
     * The message of the error raised (WalletProviderNotConfiguredError) wherever a wallet of this type is used on
     * a deployment without them: the variable to set, and where the docs say more.
     */
    notConfigured: string;
    /** The name of its settings (a `Config` field) and of its client (a `RemoteCustodians` field). */
    name: Name;
    /** The variables its settings read, as the configuration reference lists them (config/variables.ts). */
    variables: readonly VariableDefinition[];
    /**
     * Its settings from the environment (config.ts, in the registry's order), or undefined when the deployment has
     * none. Problems go to `problems`, reported together with the configuration's others.
     */
    settings(context: SettingsContext, problems: string[]): Settings | undefined;
    /** Its client, shared by the process, from its settings (loaded lazily: the admin CLI starts without it). */
    client(settings: Settings, networks: readonly NetworkId[]): Promise<Client>;
  } | null;
  /** The key its wallets' reference (`refColumn`) has in list-projects' wallets (`vaultAccountId`), or null. */
  readonly listingKey: string | null;
  /** Whether a new project's wallets may take an existing key (`kmsKeyId`, `--kms-key-id`) instead of new ones. */
  readonly adoptsKey: boolean;
  /** Makes (or finds again, under the same reserved id) a new project's two wallets. */
  provision(
    request: ProvisionRequest,
    clients: CustodyClients<Client, WalletAddresses>,
  ): Promise<Record<NetworkType, NewWallet>>;
  /** Makes (or finds again, by their positions) wallets for a project's pool, one per position, in order. */
  addWallets(request: PoolRequest, clients: CustodyClients<Client, WalletAddresses>): Promise<NewWallet[]>;
  /**
   * How a failed `provision` is undone, for a custodian outside the database: the project's id is then reserved
   * before it is called (so its wallets are named before anything exists, and found again by a run after a crash),
   * and the project's rows are written once it has answered. Null for a custody the database holds: its wallets
   * are made in the project's own transaction, and a failure rolls back with it.
   */
  readonly undo: ((error: unknown) => ProvisioningFailure) | null;
  /** What sends for its wallets: a signing account (the platform signs and broadcasts), or a submitter. */
  readonly sends:
    | { signer(wallet: CustodyWallet, clients: CustodyClients<Client>): LocalAccount }
    | { submitter(client: Client | undefined): Submitter };
  /** Its view in answers (a `SystemWallet`'s `custody`), or null (`custody: null`). */
  readonly view: {
    /** The view of the wallet row `alias`, as SQL (`json_build_object(…)`), for a row whose `refColumn` is set. */
    sql(alias: string): string;
    /** Its schema in the OpenAPI document. */
    schema: TSchema;
  } | null;
}

/** The client of a remote custodian, or the not-configured error `message`. */
export function configured<T>(client: T | undefined, message: string): T {
  if (!client) throw new WalletProviderNotConfiguredError(message);
  return client;
}
