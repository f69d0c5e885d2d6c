import type { MountainClient } from '@mountain/public-api-client';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';
import { exchangeApiKey } from '../session/lifecycle.ts';
import { session } from '../session/session.ts';

export const projectKey = ['project-detail'] as const;

/** The project, its primary wallets and every wallet of its pools, and who is calling with which role. */
export const projectDetailQuery = (client: MountainClient) =>
  queryOptions({ queryKey: projectKey, queryFn: ({ signal }) => client.getProjectDetail({ signal }) });

export function useProjectDetail() {
  return useQuery(projectDetailQuery(useClient()));
}

/** Whether the caller may change things (admin, editor): readers are shown no write controls. */
export function useCanWrite(): boolean {
  const role = useProjectDetail().data?.caller.role;
  return role === 'admin' || role === 'editor';
}

export function useIsAdmin(): boolean {
  return useProjectDetail().data?.caller.role === 'admin';
}

export const walletBalancesKey = ['wallet-balances'] as const;

/**
 * Each wallet's balance per configured network (get-wallet-balances), with whether it is low and its transactions
 * in flight and waiting there, refreshed every 15 s while visible.
 */
export const walletBalancesQuery = (client: MountainClient) =>
  queryOptions({
    queryKey: walletBalancesKey,
    queryFn: ({ signal }) => client.getWalletBalances({ signal }),
    refetchInterval: 15_000,
  });

export function useWalletBalances() {
  return useQuery(walletBalancesQuery(useClient()));
}

export const membersQuery = (client: MountainClient) =>
  queryOptions({ queryKey: ['project-members'], queryFn: ({ signal }) => client.getProjectMembers({ signal }) });

export function useMembers() {
  return useQuery(membersQuery(useClient()));
}

/**
 * Rotates the project's API key. Signed in with that key, the console's token ended with it: the new key is
 * exchanged for a new session at once (the shell then reloads what it shows with it), and only shown, not kept;
 * signed in as a user, only the masked key changes.
 */
export function useRotateApiKey() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    gcTime: 0,
    mutationFn: async () => {
      const rotated = await client.rotateApiKey();
      if (session.get()?.signedInWith === 'apiKey') session.signIn(await exchangeApiKey(rotated.apiKey));
      else await queryClient.invalidateQueries({ queryKey: projectKey });
      return rotated;
    },
  });
}

/**
 * Adds wallets to the project's pool of a network type (add-system-wallets, admins): the project detail and the
 * balances are read again, so the new wallets show with theirs.
 */
export function useAddSystemWallets() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { networkType: 'mainnet' | 'testnet'; count: number }) => client.addSystemWallets(body),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: projectKey }),
        queryClient.invalidateQueries({ queryKey: walletBalancesKey }),
      ]),
  });
}
