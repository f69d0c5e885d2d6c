import type { NetworkId } from '@mountain/public-api-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

export function useContracts() {
  const client = useClient();
  return useQuery({ queryKey: ['contracts'], queryFn: ({ signal }) => client.getContracts({ signal }) });
}

export function useActivatedFunctions(contractId: number) {
  const client = useClient();
  return useQuery({
    queryKey: ['activated-functions', contractId],
    queryFn: ({ signal }) => client.getContractActivatedFunctions({ contractId }, { signal }),
  });
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
