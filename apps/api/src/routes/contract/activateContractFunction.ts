import Type from 'typebox';
import { activateFunction } from '#api/contracts/contracts.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ContractActivatedFunction } from '#api/schemas/entities.ts';
import { exampleActivatedFunction } from '#api/schemas/examples.ts';
import { ActivateFunctionBody } from '#api/schemas/requests.ts';
import { functionSelectorRequest } from './functionSelector.ts';

export default defineRoute({
  method: 'POST',
  url: '/contract/activate-contract-function',
  operationId: 'activate-contract-function',
  summary: 'Activate a contract function',
  description:
    'Allows transactions to call one function of an imported contract. The function must be in the contract’s ABI and change state (nonpayable or payable), or be the contract’s `receive() external payable` (plain transfers of value). A payable function takes spending limits: `maxValuePerTransaction` and `maxValuePerDay` (wei); without them it takes no value. Activating an active function again returns the same activation, with the limits given changed (those left out keep their values).',
  ...functionSelectorRequest,
  body: ActivateFunctionBody,
  errors: [...functionSelectorRequest.errors, 'FUNCTION_NOT_PAYABLE'],
  response: {
    status: 201,
    description: 'The activation.',
    schema: Type.Object({ contractActivatedFunction: ContractActivatedFunction }),
    example: { contractActivatedFunction: exampleActivatedFunction },
  },
  async handler({ body, principal, deps }) {
    return { contractActivatedFunction: await activateFunction(deps.db, projectOf(principal), body) };
  },
});
