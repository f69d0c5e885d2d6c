import {
  FINAL_TRANSACTION_STATUSES,
  type MountainClient,
  type QueryParams,
  type RequestBody,
  type Transaction,
} from '@mountain/public-api-client';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

/** How often a list or a transaction that is not final yet is asked for again, while the tab is visible. */
export const REFRESH_MS = 2_000;

const isFinal = (t: Transaction) => (FINAL_TRANSACTION_STATUSES as readonly string[]).includes(t.status);

export type TransactionFilter = QueryParams<'get-transactions'>['status'];

/**
 * One page of transactions. Refreshed while any of them is unfinished; TanStack Query pauses the refresh while the
 * tab is hidden (refetchIntervalInBackground is off).
 */
export const transactionsQuery = (
  client: MountainClient,
  status: TransactionFilter | undefined,
  page: number,
  perPage = 20,
) =>
  queryOptions({
    queryKey: ['transactions', status ?? 'all', page, perPage],
    queryFn: ({ signal }) => client.getTransactions({ page, perPage, ...(status ? { status } : {}) }, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.data.transactions.some((t) => !isFinal(t)) ? REFRESH_MS : false),
  });

export function useTransactions(status: TransactionFilter | undefined, page: number, perPage = 20) {
  return useQuery(transactionsQuery(useClient(), status, page, perPage));
}

/** One transaction, refreshed until it is final and finalized (a mined one may still be reorged until then). */
export const transactionQuery = (client: MountainClient, transactionId: string) =>
  queryOptions({
    queryKey: ['transaction', transactionId],
    queryFn: ({ signal }) => client.getTransaction({ transactionId }, { signal }),
    refetchInterval: (query) => {
      const t = query.state.data?.transaction;
      return t && isFinal(t) && (t.finalized || t.status !== 'succeeded') ? false : REFRESH_MS;
    },
  });

export function useTransaction(transactionId: string) {
  return useQuery(transactionQuery(useClient(), transactionId));
}

export function useExecuteTransaction() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'execute-transaction'>) => client.executeTransaction(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['transactions'] }),
  });
}

/**
 * Asks the wallet's monitor to re-sign a broadcast transaction at its nonce with higher fees; the transaction's
 * query is asked for again at once (and keeps refreshing while it is not final) so its new hash shows.
 */
export function useSpeedUpTransaction(transactionId: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (feeMultiplier: number) => client.speedUpTransaction({ transactionId, feeMultiplier }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['transaction', transactionId] }),
  });
}

/** cancel-transaction of one transaction; its query is asked for again at once, so its new status shows. */
export function useCancelTransaction(transactionId: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.cancelTransaction({ transactionId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['transaction', transactionId] }),
  });
}
