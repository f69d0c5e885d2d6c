import type { ContractActivatedFunction } from '@mountain/public-api-client';
import { useQueries } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';
import { structsOf } from './abiText.ts';
import { activatedFunctionsQuery, useContracts } from './useContracts.ts';

/** What a transaction's contractActivatedFunctionId stands for: the function and the contract it belongs to. */
export interface FunctionName {
  /** `increment`, or `receive` for a plain transfer. */
  name: string;
  formattedAbiFunction: string;
  contractId: number;
  address: string;
  /** The contract's structs, which its functions' parameters may name. */
  structs: string[];
}

/** `function increment(uint256 amount)` → `increment`. */
export const functionNameOf = (formattedAbiFunction: string) =>
  /^(?:function\s+)?(\w+)\s*\(/.exec(formattedAbiFunction.trim())?.[1] ??
  (/^receive\s*\(/.test(formattedAbiFunction.trim()) ? 'receive' : formattedAbiFunction);

/**
 * The project's activated functions by id, from the contracts and their activated functions (the same queries as
 * the Contracts view, shared in the cache). A function deactivated since is not among them.
 */
export function useFunctionNames(): Map<number, FunctionName> {
  const client = useClient();
  const contracts = useContracts().data?.contracts ?? [];
  const lists = useQueries({ queries: contracts.map((c) => activatedFunctionsQuery(client, c.id)) });
  const names = new Map<number, FunctionName>();
  lists.forEach((list, i) => {
    const contract = contracts[i];
    if (!contract) return;
    for (const f of (list.data?.contractActivatedFunctions ?? []) as ContractActivatedFunction[]) {
      names.set(f.id, {
        name: functionNameOf(f.formattedAbiFunction),
        formattedAbiFunction: f.formattedAbiFunction,
        contractId: contract.id,
        address: contract.address,
        structs: structsOf(contract.formattedAbi),
      });
    }
  });
  return names;
}
