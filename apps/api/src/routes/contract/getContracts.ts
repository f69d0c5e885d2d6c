import Type from 'typebox';
import { listContracts } from '#api/contracts/contracts.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { Contract } from '#api/schemas/entities.ts';
import { exampleContract } from '#api/schemas/examples.ts';

export default defineRoute({
  method: 'GET',
  url: '/contract',
  operationId: 'get-contracts',
  tag: 'Contract',
  summary: 'List your contracts',
  description: 'Lists the contracts imported into the project, oldest first.',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'The project’s contracts.',
    schema: Type.Object({ contracts: Type.Array(Contract) }),
    example: { contracts: [exampleContract] },
  },
  errors: [],
  async handler({ principal, deps }) {
    return { contracts: await listContracts(deps.db, projectOf(principal)) };
  },
});
