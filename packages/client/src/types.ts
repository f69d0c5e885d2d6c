// Names for the objects of the Public API, from the generated schema, so callers need not spell components[…].
import type { components } from './generated/schema.ts';

type Schemas = components['schemas'];

/**
 * A project: `apiKey` is masked.
 *
 * @example
 * ```ts
 * import type { Project } from '@mountain/public-api-client';
 *
 * const { data }: { data: { projects: Project[] } } = await client.getProjects();
 * ```
 */
export type Project = Schemas['Project'];

/**
 * One of a project's two system wallets (mainnet, testnet), which sign its transactions.
 *
 * @example
 * ```ts
 * import type { SystemWallet } from '@mountain/public-api-client';
 *
 * const wallet: SystemWallet = (await client.getProjectDetail()).data.mSystemWalletTestnet;
 * ```
 */
export type SystemWallet = Schemas['SystemWallet'];

/**
 * A chain id the API supports: 1, 137, 42161 (mainnets), 11155111, 80002, 421614, 1337 (testnets).
 *
 * @example
 * ```ts
 * import type { NetworkId } from '@mountain/public-api-client';
 *
 * const local: NetworkId = 1337;
 * ```
 */
export type NetworkId = Schemas['NetworkId'];

/**
 * The `meta` of a paginated answer: `pageNumber`, `perPage`, `totalPage`, `totalItems`.
 *
 * @example
 * ```ts
 * import type { PaginationMeta } from '@mountain/public-api-client';
 *
 * const { meta }: { meta: PaginationMeta } = await client.getTransactions({ page: 1 });
 * ```
 */
export type PaginationMeta = Schemas['PaginationMeta'];

/**
 * An imported contract with its human-readable ABI.
 *
 * @example
 * ```ts
 * import type { Contract } from '@mountain/public-api-client';
 *
 * const { contracts }: { contracts: Contract[] } = await client.getContracts();
 * ```
 */
export type Contract = Schemas['Contract'];

/**
 * A contract function activated for execution.
 *
 * @example
 * ```ts
 * import type { ContractActivatedFunction } from '@mountain/public-api-client';
 *
 * const { contractActivatedFunction }: { contractActivatedFunction: ContractActivatedFunction } =
 *   await client.activateContractFunction({ contractId, formattedAbiFunction: 'function mint(address to, uint256 amount)' });
 * ```
 */
export type ContractActivatedFunction = Schemas['ContractActivatedFunction'];

/**
 * A transaction and where it is in its lifecycle.
 *
 * @example
 * ```ts
 * import type { Transaction } from '@mountain/public-api-client';
 *
 * const transaction: Transaction = await client.waitForTransaction(id);
 * ```
 */
export type Transaction = Schemas['Transaction'];

/**
 * A transaction's fine-grained status: `created → processing → broadcasted → succeeded | reverted`, failures
 * `broadcast-failed` and `monitor-failed`.
 *
 * @example
 * ```ts
 * import type { TransactionStatus } from '@mountain/public-api-client';
 *
 * const status: TransactionStatus = (await client.getTransaction({ transactionId })).transaction.status;
 * ```
 */
export type TransactionStatus = Transaction['status'];

/**
 * A subscription scanning one event of one contract and delivering it to a webhook.
 *
 * @example
 * ```ts
 * import type { EventNotifierSubscription } from '@mountain/public-api-client';
 *
 * const { eventNotifierSubscriptions }: { eventNotifierSubscriptions: EventNotifierSubscription[] } =
 *   await client.getSubscriptions();
 * ```
 */
export type EventNotifierSubscription = Schemas['EventNotifierSubscription'];

/**
 * One decoded event found by a subscription, with its webhook delivery state.
 *
 * @example
 * ```ts
 * import type { EventNotifierRecord } from '@mountain/public-api-client';
 *
 * const { eventNotifierRecords }: { eventNotifierRecords: EventNotifierRecord[] } =
 *   await client.getRecords({ subscriptionId });
 * ```
 */
export type EventNotifierRecord = Schemas['EventNotifierRecord'];

/**
 * What `resendFailedWebhook` re-queued.
 *
 * @example
 * ```ts
 * import type { WebhookResendSummary } from '@mountain/public-api-client';
 *
 * const { record }: { record: WebhookResendSummary } = await client.resendFailedWebhook({ subscriptionId });
 * ```
 */
export type WebhookResendSummary = Schemas['WebhookResendSummary'];

/**
 * The JSON body of every error answer; a `MountainError` keeps it as `body`.
 *
 * @example
 * ```ts
 * import { type ErrorBody, MountainError } from '@mountain/public-api-client';
 *
 * const body = error instanceof MountainError ? (error.body as ErrorBody) : undefined;
 * ```
 */
export type ErrorBody = Schemas['Error'];
