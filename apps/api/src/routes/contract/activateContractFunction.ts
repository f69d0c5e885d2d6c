import Type from 'typebox';
import { activateFunction } from '#api/contracts/contracts.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ContractActivatedFunction } from '#api/schemas/entities.ts';
import { exampleActivatedFunction } from '#api/schemas/examples.ts';
import { FunctionSelectorBody } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/contract/activate-contract-function',
  operationId: 'activate-contract-function',
  tag: 'Contract',
  summary: 'Activate a contract function',
  description:
    'Allows transactions to call one function of an imported contract. The function must be in the contract’s ABI and change state (nonpayable or payable). Activating an active function again returns the same activation.',
  auth: { roles: WRITERS },
  body: FunctionSelectorBody,
  requestExample: { contractId: 7, formattedAbiFunction: exampleActivatedFunction.formattedAbiFunction },
  response: {
    status: 201,
    description: 'The activation.',
    schema: Type.Object({ contractActivatedFunction: ContractActivatedFunction }),
    example: { contractActivatedFunction: exampleActivatedFunction },
  },
  errors: ['NOT_FOUND', 'FUNCTION_NOT_IN_ABI', 'FUNCTION_NOT_STATE_CHANGING'],
  async handler({ body, principal, deps }) {
    return { contractActivatedFunction: await activateFunction(deps.db, projectOf(principal), body) };
  },
});
