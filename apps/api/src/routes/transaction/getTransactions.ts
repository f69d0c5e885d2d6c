import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { PaginationMeta, Transaction } from '#api/schemas/entities.ts';
import { exampleTransaction } from '#api/schemas/examples.ts';
import { PageQuery, TransactionStatusFilter } from '#api/schemas/requests.ts';
import { listTransactions } from '#api/transactions/transactions.ts';

export default defineRoute({
  method: 'GET',
  url: '/transaction/get-transactions',
  operationId: 'get-transactions',
  tag: 'Transaction',
  summary: 'List transactions',
  description:
    'Lists the project’s transactions, newest first by `createdAt`, one page at a time, optionally by status.',
  auth: { roles: ROLES },
  querystring: Type.Object(
    { ...PageQuery, status: Type.Optional(TransactionStatusFilter) },
    { additionalProperties: false },
  ),
  response: {
    status: 200,
    description: 'One page of transactions.',
    schema: Type.Object({ data: Type.Object({ transactions: Type.Array(Transaction) }), meta: PaginationMeta }),
    example: {
      data: { transactions: [exampleTransaction] },
      meta: { pageNumber: 1, perPage: 20, totalPage: 1, totalItems: 1 },
    },
  },
  errors: [],
  async handler({ query, principal, deps }) {
    return listTransactions(deps.db, projectOf(principal), query);
  },
});
