import type { MountainClient, NetworkId, RequestBody } from '@mountain/public-api-client';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

export const contractsQuery = (client: MountainClient) =>
  queryOptions({ queryKey: ['contracts'], queryFn: ({ signal }) => client.getContracts({ signal }) });

export const activatedFunctionsQuery = (client: MountainClient, contractId: number) =>
  queryOptions({
    queryKey: ['activated-functions', contractId],
    queryFn: ({ signal }) => client.getContractActivatedFunctions({ contractId }, { signal }),
  });

export function useContracts() {
  return useQuery(contractsQuery(useClient()));
}

export function useActivatedFunctions(contractId: number) {
  return useQuery(activatedFunctionsQuery(useClient(), contractId));
}

export function useImportContract() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { networkId: NetworkId; address: string; formattedAbi: string[] }) =>
      client.importContract(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['contracts'] }),
  });
}

/** The spending limits of a payable function's activation (wei, decimal strings). */
export interface SpendingLimits {
  maxValuePerTransaction: string;
  maxValuePerDay: string;
}

/**
 * Activates or deactivates one function of a contract; activating a payable function takes its spending limits
 * (activating an active one again changes them).
 */
export function useSetFunctionActive(contractId: number) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      formattedAbiFunction,
      active,
      limits,
    }: {
      formattedAbiFunction: string;
      active: boolean;
      limits?: SpendingLimits;
    }) => {
      if (active) await client.activateContractFunction({ contractId, formattedAbiFunction, ...limits });
      else await client.deactivateContractFunction({ contractId, formattedAbiFunction });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['activated-functions', contractId] }),
  });
}

/** Reads a view or pure function (an eth_call at a block): nothing is sent, so every role may. */
export function useReadFunction() {
  const client = useClient();
  return useMutation({
    mutationFn: (body: RequestBody<'call-contract-function'>) => client.callContractFunction(body),
  });
}
