// The public API of @mountain/public-api-client. Anything not exported here is internal and may change.
export {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  type FieldError,
  MountainError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from './errors.ts';
export { MountainClient } from './MountainClient.ts';
export type { OperationId, QueryParams, RequestBody, ResponseBody } from './operations.ts';
export { DEFAULT_BASE_URL, type MountainClientOptions, type RequestOptions } from './options.ts';
export { backoffDelay, parseRetryAfter } from './retry.ts';
export {
  FINAL_TRANSACTION_STATUSES,
  type IterateTransactionsOptions,
  type WaitForTransactionOptions,
} from './transactions.ts';
export type {
  Contract,
  ContractActivatedFunction,
  ErrorBody,
  EventNotifierRecord,
  EventNotifierSubscription,
  NetworkId,
  PaginationMeta,
  Project,
  SystemWallet,
  Transaction,
  TransactionStatus,
  WebhookResendSummary,
} from './types.ts';
