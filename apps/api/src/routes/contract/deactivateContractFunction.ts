import Type from 'typebox';
import { deactivateFunction } from '#api/contracts/contracts.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { exampleActivatedFunction } from '#api/schemas/examples.ts';
import { FunctionSelectorBody } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/contract/deactivate-contract-function',
  operationId: 'deactivate-contract-function',
  tag: 'Contract',
  summary: 'Deactivate a contract function',
  description:
    'Stops new transactions from calling the function. Transactions already accepted go on. Deactivating an inactive function is not an error.',
  auth: { roles: WRITERS },
  body: FunctionSelectorBody,
  requestExample: { contractId: 7, formattedAbiFunction: exampleActivatedFunction.formattedAbiFunction },
  response: {
    status: 201,
    description: 'What happened.',
    schema: Type.Object({ message: Type.String() }),
    example: { message: 'Function mint(address,uint256) of contract 7 is deactivated' },
  },
  errors: ['NOT_FOUND', 'FUNCTION_NOT_IN_ABI', 'FUNCTION_NOT_STATE_CHANGING'],
  async handler({ body, principal, deps }) {
    return { message: await deactivateFunction(deps.db, projectOf(principal), body) };
  },
});
