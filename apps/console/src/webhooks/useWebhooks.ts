import type { MountainClient, QueryParams, RequestBody, ResponseBody } from '@mountain/public-api-client';
import { WEBHOOK_EVENT_TYPES } from '@mountain/webhook-sdk';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

export type WebhookEndpoint = ResponseBody<'get-webhook-endpoints'>['webhookEndpoints'][number];
export type WebhookAttempt = ResponseBody<'get-webhook-attempts'>['webhookAttempts'][number];
export type AttemptQuery = QueryParams<'get-webhook-attempts'>;
export type EventType = RequestBody<'create-webhook-endpoint'>['eventTypes'][number];

/**
 * The types an endpoint may choose: the webhook SDK's list, the one the API's schemas are built from (a type the
 * API does not know fails typechecking).
 */
export const EVENT_TYPES = WEBHOOK_EVENT_TYPES satisfies readonly EventType[];

const endpointsKey = ['webhook-endpoints'] as const;

/** The project's endpoints; their failure streaks and auto-disable move on their own, so they refresh while visible. */
export const endpointsQuery = (client: MountainClient) =>
  queryOptions({
    queryKey: endpointsKey,
    queryFn: ({ signal }) => client.getWebhookEndpoints({ signal }),
    refetchInterval: 10_000,
  });

export function useEndpoints() {
  return useQuery(endpointsQuery(useClient()));
}

/** A change to endpoints: the list is read again once it is made. */
function useEndpointMutation<In, Out>(call: (body: In) => Promise<Out>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: endpointsKey }),
  });
}

export function useCreateEndpoint() {
  const client = useClient();
  return useEndpointMutation((body: RequestBody<'create-webhook-endpoint'>) => client.createWebhookEndpoint(body));
}

export function useUpdateEndpoint() {
  const client = useClient();
  return useEndpointMutation((body: RequestBody<'update-webhook-endpoint'>) => client.updateWebhookEndpoint(body));
}

export function useDeleteEndpoint() {
  const client = useClient();
  return useEndpointMutation((body: RequestBody<'delete-webhook-endpoint'>) => client.deleteWebhookEndpoint(body));
}

export function useRotateEndpointSecret() {
  const client = useClient();
  return useEndpointMutation((body: RequestBody<'rotate-webhook-endpoint-secret'>) =>
    client.rotateWebhookEndpointSecret(body),
  );
}

export function useReplay() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'replay-webhook-messages'>) => client.replayWebhookMessages(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-attempts'] }),
  });
}

/** Attempts a page of the log shows. */
export const ATTEMPTS_PER_PAGE = 50;

/** One page of the attempt log for `query` (its filters and cursor); the page shown stays while the next loads. */
export const attemptsQuery = (client: MountainClient, query: AttemptQuery) =>
  queryOptions({
    queryKey: ['webhook-attempts', query],
    queryFn: ({ signal }) => client.getWebhookAttempts(query, { signal }),
    placeholderData: keepPreviousData,
    // Only the newest page moves: an older one (a cursor) is history.
    refetchInterval: query.cursor ? false : 5_000,
  });

export function useAttempts(query: AttemptQuery) {
  return useQuery(attemptsQuery(useClient(), query));
}
