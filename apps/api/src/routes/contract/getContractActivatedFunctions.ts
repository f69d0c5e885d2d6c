import Type from 'typebox';
import { listActivatedFunctions } from '#api/contracts/contracts.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { ContractActivatedFunction } from '#api/schemas/entities.ts';
import { exampleActivatedFunction } from '#api/schemas/examples.ts';
import { ContractIdField } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/contract/get-contract-activated-functions',
  operationId: 'get-contract-activated-functions',
  tag: 'Contract',
  summary: 'List a contract’s active functions',
  description: 'Lists the functions of the contract that transactions may call.',
  auth: { roles: ROLES },
  body: Type.Object({ contractId: ContractIdField }, { additionalProperties: false }),
  requestExample: { contractId: 7 },
  response: {
    status: 200,
    description: 'The active functions.',
    schema: Type.Object({ contractActivatedFunctions: Type.Array(ContractActivatedFunction) }),
    example: { contractActivatedFunctions: [exampleActivatedFunction] },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    return { contractActivatedFunctions: await listActivatedFunctions(deps.db, projectOf(principal), body.contractId) };
  },
});
