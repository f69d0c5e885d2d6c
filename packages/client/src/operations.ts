// The operations of the OpenAPI document, by client method name. Types come from the generated schema; the
// table gives what types cannot: method and path at run time. operations.test.ts checks it against the document.
import type { operations, paths } from './generated/schema.ts';

/**
 * The `operationId` of an operation of the Public API, e.g. `'execute-transaction'`.
 *
 * @example
 * ```ts
 * import type { OperationId } from '@mountain/public-api-client';
 *
 * const id: OperationId = 'get-transactions';
 * ```
 */
export type OperationId = keyof operations;

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/**
 * The JSON request body of an operation (`never` for operations without one).
 *
 * @example
 * ```ts
 * import type { RequestBody } from '@mountain/public-api-client';
 *
 * const body: RequestBody<'import-contract'> = { networkId: 1337, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', formattedAbi: ['function mint(address to, uint256 amount)'] };
 * ```
 */
export type RequestBody<Id extends OperationId> = Json<NonNullable<operations[Id]['requestBody']>>;

/**
 * The query parameters of an operation (`never` for operations without any).
 *
 * @example
 * ```ts
 * import type { QueryParams } from '@mountain/public-api-client';
 *
 * const query: QueryParams<'get-transactions'> = { page: 2, perPage: 50, status: 'failed' };
 * ```
 */
export type QueryParams<Id extends OperationId> = NonNullable<operations[Id]['parameters']['query']>;

/**
 * The JSON body of an operation's success answer (200 or 201), as the methods resolve with it.
 *
 * @example
 * ```ts
 * import type { ResponseBody } from '@mountain/public-api-client';
 *
 * const { transaction }: ResponseBody<'get-transaction'> = await client.getTransaction({ transactionId });
 * ```
 */
export type ResponseBody<Id extends OperationId> = Json<
  operations[Id]['responses'][Extract<keyof operations[Id]['responses'], 200 | 201>]
>;

/** `get-contract-activated-functions` → `getContractActivatedFunctions`. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The method name of each operation. */
export type MethodName = CamelCase<OperationId>;

interface OperationRoute {
  operationId: OperationId;
  method: 'GET' | 'POST';
  path: keyof paths;
}

/** `get(operationId, path)` and `post(…)` build one entry of the table, keeping its literal types. */
const route =
  <const Method extends OperationRoute['method']>(method: Method) =>
  <const Id extends OperationId, const Path extends keyof paths>(operationId: Id, path: Path) => ({
    operationId,
    method,
    path,
  });
const get = route('GET');
const post = route('POST');

/** Method and path of each operation, by client method name. @internal */
export const OPERATIONS = {
  getProjects: get('get-projects', '/project/get-projects'),
  getProjectDetail: get('get-project-detail', '/project/get-project-detail'),
  getProjectMembers: get('get-project-members', '/project/get-project-members'),
  rotateApiKey: post('rotate-api-key', '/project/rotate-api-key'),
  getStatistics: get('get-statistics', '/project/get-statistics'),
  getWalletBalances: get('get-wallet-balances', '/project/get-wallet-balances'),
  addSystemWallets: post('add-system-wallets', '/project/add-system-wallets'),
  exchangeConsoleLink: post('exchange-console-link', '/console/exchange-console-link'),
  exchangeApiKey: post('exchange-api-key', '/auth/exchange-api-key'),
  renewAccessToken: post('renew-access-token', '/auth/renew-access-token'),
  revokeAccessToken: post('revoke-access-token', '/auth/revoke-access-token'),
  createSubscription: post('create-subscription', '/event-notifier/create-subscription'),
  getSubscriptions: get('get-subscriptions', '/event-notifier/get-subscriptions'),
  updateSubscriptionWebhook: post('update-subscription-webhook', '/event-notifier/update-subscription-webhook'),
  updateSubscriptionScan: post('update-subscription-scan', '/event-notifier/update-subscription-scan'),
  updateSubscription: post('update-subscription', '/event-notifier/update-subscription'),
  rewindSubscription: post('rewind-subscription', '/event-notifier/rewind-subscription'),
  deleteSubscription: post('delete-subscription', '/event-notifier/delete-subscription'),
  getRecords: post('get-records', '/event-notifier/get-records'),
  resendFailedWebhook: post('resend-failed-webhook', '/event-notifier/resend-failed-webhook'),
  getContracts: get('get-contracts', '/contract'),
  importContract: post('import-contract', '/contract/import-contract'),
  activateContractFunction: post('activate-contract-function', '/contract/activate-contract-function'),
  deactivateContractFunction: post('deactivate-contract-function', '/contract/deactivate-contract-function'),
  getContractActivatedFunctions: post('get-contract-activated-functions', '/contract/get-contract-activated-functions'),
  callContractFunction: post('call-contract-function', '/contract/call-contract-function'),
  executeTransaction: post('execute-transaction', '/transaction/execute-transaction'),
  getTransaction: get('get-transaction', '/transaction/get-transaction'),
  getTransactions: get('get-transactions', '/transaction/get-transactions'),
  speedUpTransaction: post('speed-up-transaction', '/transaction/speed-up-transaction'),
  cancelTransaction: post('cancel-transaction', '/transaction/cancel-transaction'),
  createWebhookEndpoint: post('create-webhook-endpoint', '/webhook/create-webhook-endpoint'),
  getWebhookEndpoints: get('get-webhook-endpoints', '/webhook/get-webhook-endpoints'),
  updateWebhookEndpoint: post('update-webhook-endpoint', '/webhook/update-webhook-endpoint'),
  deleteWebhookEndpoint: post('delete-webhook-endpoint', '/webhook/delete-webhook-endpoint'),
  rotateWebhookEndpointSecret: post('rotate-webhook-endpoint-secret', '/webhook/rotate-webhook-endpoint-secret'),
  getWebhookMessages: get('get-webhook-messages', '/webhook/get-webhook-messages'),
  getWebhookAttempts: get('get-webhook-attempts', '/webhook/get-webhook-attempts'),
  replayWebhookMessages: post('replay-webhook-messages', '/webhook/replay-webhook-messages'),
  rotateSubscriptionWebhookSecret: post(
    'rotate-subscription-webhook-secret',
    '/event-notifier/rotate-subscription-webhook-secret',
  ),
} as const satisfies { [Name in MethodName]: OperationRoute & { operationId: OperationIdOf<Name> } };

type OperationIdOf<Name extends MethodName> = {
  [Id in OperationId]: CamelCase<Id> extends Name ? Id : never;
}[OperationId];
