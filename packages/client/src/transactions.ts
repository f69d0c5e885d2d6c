// Pagination and polling over the transaction operations, written against the two methods they need so that
// MountainClient stays a thin list of operations.
import { TimeoutError } from './errors.ts';
import type { QueryParams, ResponseBody } from './operations.ts';
import type { RequestOptions } from './options.ts';
import { sleep } from './retry.ts';
import type { Transaction, TransactionStatus } from './types.ts';

/**
 * The statuses a transaction never leaves (but by a reorg, for the mined ones): `succeeded`, `reverted`,
 * `broadcast-failed`, `monitor-failed`, `cancelled`.
 *
 * @example
 * ```ts
 * import { FINAL_TRANSACTION_STATUSES } from '@mountain/public-api-client';
 *
 * const { transaction } = await client.getTransaction({ transactionId });
 * const done = FINAL_TRANSACTION_STATUSES.includes(transaction.status);
 * ```
 */
export const FINAL_TRANSACTION_STATUSES: readonly TransactionStatus[] = Object.freeze([
  'succeeded',
  'reverted',
  'broadcast-failed',
  'monitor-failed',
  'cancelled',
] as const satisfies readonly TransactionStatus[]);

/**
 * Options of `client.iterateTransactions()`: the status filter (`failed` matches the three failure statuses)
 * and the page size (default 100, the most the API allows).
 *
 * @example
 * ```ts
 * import type { IterateTransactionsOptions } from '@mountain/public-api-client';
 *
 * const options: IterateTransactionsOptions = { status: 'failed', perPage: 50 };
 * for await (const transaction of client.iterateTransactions(options)) console.log(transaction.id);
 * ```
 */
export interface IterateTransactionsOptions {
  status?: QueryParams<'get-transactions'>['status'];
  perPage?: number;
}

/**
 * Options of `client.waitForTransaction()`: poll every `intervalMs` (default 1 000) for at most `timeoutMs`
 * (default 120 000), stopping early when `signal` aborts.
 *
 * @example
 * ```ts
 * import type { WaitForTransactionOptions } from '@mountain/public-api-client';
 *
 * const options: WaitForTransactionOptions = { intervalMs: 500, timeoutMs: 30_000 };
 * const transaction = await client.waitForTransaction(id, options);
 * ```
 */
export interface WaitForTransactionOptions {
  intervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

type GetTransactions = (
  query: Partial<QueryParams<'get-transactions'>>,
  options?: RequestOptions,
) => Promise<ResponseBody<'get-transactions'>>;
type GetTransaction = (
  query: QueryParams<'get-transaction'>,
  options?: RequestOptions,
) => Promise<ResponseBody<'get-transaction'>>;

/** Every transaction of the project, page after page. @internal */
export async function* iterateTransactions(
  getTransactions: GetTransactions,
  { status, perPage = 100 }: IterateTransactionsOptions,
  options?: RequestOptions,
): AsyncGenerator<Transaction, void, undefined> {
  // Pages are newest first: a transaction created meanwhile pushes older ones to the next page, where they would
  // come a second time. Remembering the ids yielded skips those repeats.
  const yielded = new Set<string>();
  for (let page = 1; ; page++) {
    const { data, meta } = await getTransactions({ page, perPage, ...(status ? { status } : {}) }, options);
    for (const transaction of data.transactions) {
      if (yielded.has(transaction.id)) continue;
      yielded.add(transaction.id);
      yield transaction;
    }
    if (data.transactions.length === 0 || page >= meta.totalPage) return;
  }
}

/** Polls until the transaction's status is final. @internal */
export async function waitForTransaction(
  getTransaction: GetTransaction,
  transactionId: string,
  { intervalMs = 1_000, timeoutMs = 120_000, signal }: WaitForTransactionOptions,
): Promise<Transaction> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { transaction } = await getTransaction({ transactionId }, signal ? { signal } : {});
    if (FINAL_TRANSACTION_STATUSES.includes(transaction.status)) return transaction;
    if (Date.now() + intervalMs > deadline) {
      throw new TimeoutError({
        code: 'TIMEOUT',
        message: `Transaction ${transactionId} is still ${transaction.status} after ${timeoutMs} ms`,
        body: transaction,
      });
    }
    await sleep(intervalMs, signal);
  }
}
