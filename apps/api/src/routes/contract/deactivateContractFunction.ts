import Type from 'typebox';
import { deactivateFunction } from '#api/contracts/contracts.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { functionSelectorRequest } from './functionSelector.ts';

export default defineRoute({
  method: 'POST',
  url: '/contract/deactivate-contract-function',
  operationId: 'deactivate-contract-function',
  summary: 'Deactivate a contract function',
  description:
    'Stops new transactions from calling the function. Transactions already accepted go on. Deactivating an inactive function is not an error.',
  ...functionSelectorRequest,
  response: {
    status: 201,
    description: 'What happened.',
    schema: Type.Object({ message: Type.String() }),
    example: { message: 'Function mint(address,uint256) of contract 7 is deactivated' },
  },
  async handler({ body, principal, deps }) {
    return { message: await deactivateFunction(deps.db, projectOf(principal), body) };
  },
});
