import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { Transaction } from '#api/schemas/entities.ts';
import { exampleTransaction } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { getTransaction } from '#api/transactions/transactions.ts';

export default defineRoute({
  method: 'GET',
  url: '/transaction/get-transaction',
  operationId: 'get-transaction',
  tag: 'Transaction',
  summary: 'Get a transaction',
  description: 'Returns one transaction of the project with its current status.',
  auth: { roles: ROLES },
  querystring: Type.Object({ transactionId: RequestUuid('The transaction id.') }, { additionalProperties: false }),
  response: {
    status: 200,
    description: 'The transaction.',
    schema: Type.Object({ transaction: Transaction }),
    example: { transaction: exampleTransaction },
  },
  errors: ['NOT_FOUND'],
  async handler({ query, principal, deps }) {
    return { transaction: await getTransaction(deps.db, projectOf(principal), query.transactionId) };
  },
});
