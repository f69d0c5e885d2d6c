import type { MountainClient, NetworkId } from '@mountain/public-api-client';
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

/** Activates or deactivates one function of a contract. */
export function useSetFunctionActive(contractId: number) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ formattedAbiFunction, active }: { formattedAbiFunction: string; active: boolean }) => {
      if (active) await client.activateContractFunction({ contractId, formattedAbiFunction });
      else await client.deactivateContractFunction({ contractId, formattedAbiFunction });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['activated-functions', contractId] }),
  });
}
