import type { MountainClient, RequestBody } from '@mountain/public-api-client';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

export const subscriptionsQuery = (client: MountainClient) =>
  queryOptions({
    queryKey: ['subscriptions'],
    queryFn: ({ signal }) => client.getSubscriptions({ signal }),
    // Scanning moves on its own: the list's scan status and last block follow it while the tab is visible.
    refetchInterval: 5_000,
  });

export function useSubscriptions() {
  return useQuery(subscriptionsQuery(useClient()));
}

export function useCreateSubscription() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'create-subscription'>) => client.createSubscription(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscriptions'] }),
  });
}

export function useUpdateWebhook() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'update-subscription-webhook'>) => client.updateSubscriptionWebhook(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscriptions'] }),
  });
}

export function useUpdateScan() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'update-subscription-scan'>) => client.updateSubscriptionScan(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscriptions'] }),
  });
}

/** Changes a subscription's name, cadence, depth or what it watches (from its next scan). */
export function useUpdateSubscription() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'update-subscription'>) => client.updateSubscription(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscriptions'] }),
  });
}

/** Scans a subscription again from an earlier block; its records' pages are read again. */
export function useRewindSubscription() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'rewind-subscription'>) => client.rewindSubscription(body),
    onSuccess: (_answer, body) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['subscriptions'] }),
        queryClient.invalidateQueries({ queryKey: ['records', body.id] }),
      ]),
  });
}

/** Deletes a subscription; its records go with it (their cached pages are dropped too). */
export function useDeleteSubscription() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'delete-subscription'>) => client.deleteSubscription(body),
    onSuccess: (_answer, body) => {
      queryClient.removeQueries({ queryKey: ['records', body.id] });
      return queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
    },
  });
}

export const recordsQuery = (client: MountainClient, subscriptionId: string, page: number) =>
  queryOptions({
    queryKey: ['records', subscriptionId, page],
    queryFn: ({ signal }) => client.getRecords({ subscriptionId, page, perPage: 50 }, { signal }),
    refetchInterval: 5_000,
  });

export function useRecords(subscriptionId: string, page: number) {
  return useQuery(recordsQuery(useClient(), subscriptionId, page));
}

export function useResendFailed(subscriptionId: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (force: boolean) => client.resendFailedWebhook({ subscriptionId, force }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['records', subscriptionId] }),
  });
}
