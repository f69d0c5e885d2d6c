// The 15 operations of the OpenAPI document, by client method name. Types come from the generated schema; the
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

/** Method and path of each operation, by client method name. @internal */
export const OPERATIONS = {
  getProjects: { operationId: 'get-projects', method: 'GET', path: '/project/get-projects' },
  getProjectDetail: { operationId: 'get-project-detail', method: 'GET', path: '/project/get-project-detail' },
  createSubscription: {
    operationId: 'create-subscription',
    method: 'POST',
    path: '/event-notifier/create-subscription',
  },
  getSubscriptions: { operationId: 'get-subscriptions', method: 'GET', path: '/event-notifier/get-subscriptions' },
  updateSubscriptionWebhook: {
    operationId: 'update-subscription-webhook',
    method: 'POST',
    path: '/event-notifier/update-subscription-webhook',
  },
  getRecords: { operationId: 'get-records', method: 'POST', path: '/event-notifier/get-records' },
  resendFailedWebhook: {
    operationId: 'resend-failed-webhook',
    method: 'POST',
    path: '/event-notifier/resend-failed-webhook',
  },
  getContracts: { operationId: 'get-contracts', method: 'GET', path: '/contract' },
  importContract: { operationId: 'import-contract', method: 'POST', path: '/contract/import-contract' },
  activateContractFunction: {
    operationId: 'activate-contract-function',
    method: 'POST',
    path: '/contract/activate-contract-function',
  },
  deactivateContractFunction: {
    operationId: 'deactivate-contract-function',
    method: 'POST',
    path: '/contract/deactivate-contract-function',
  },
  getContractActivatedFunctions: {
    operationId: 'get-contract-activated-functions',
    method: 'POST',
    path: '/contract/get-contract-activated-functions',
  },
  executeTransaction: {
    operationId: 'execute-transaction',
    method: 'POST',
    path: '/transaction/execute-transaction',
  },
  getTransaction: { operationId: 'get-transaction', method: 'GET', path: '/transaction/get-transaction' },
  getTransactions: { operationId: 'get-transactions', method: 'GET', path: '/transaction/get-transactions' },
} as const satisfies { [Name in MethodName]: OperationRoute & { operationId: OperationIdOf<Name> } };

type OperationIdOf<Name extends MethodName> = {
  [Id in OperationId]: CamelCase<Id> extends Name ? Id : never;
}[OperationId];
