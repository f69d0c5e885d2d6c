import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { Transaction } from '#api/schemas/entities.ts';
import { exampleTransaction } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { getTransaction, REORGS_LISTED, transactionReorgs } from '#api/transactions/transactions.ts';

export default defineRoute({
  method: 'GET',
  url: '/transaction/get-transaction',
  operationId: 'get-transaction',
  tag: 'Transaction',
  summary: 'Get a transaction',
  description:
    'Returns one transaction of the project with its current status, and `reorgs`: each block that held it and then ' +
    `left the canonical chain, oldest first (the newest ${REORGS_LISTED}). A transaction taken back by a reorg is ` +
    '`broadcasted` again with its block fields cleared until the chain includes it again.',
  auth: { roles: ROLES },
  querystring: Type.Object({ transactionId: RequestUuid('The transaction id.') }, { additionalProperties: false }),
  response: {
    status: 200,
    description: 'The transaction.',
    schema: Type.Object({
      transaction: Transaction,
      reorgs: Type.Array(
        Type.Object({
          blockNumber: Type.Integer({ description: 'The block that held it.' }),
          blockHash: Type.Union([Type.String(), Type.Null()], { description: 'That block’s hash.' }),
          transactionHash: Type.Union([Type.String(), Type.Null()], { description: 'The hash that was in it.' }),
          reorgedAt: Type.String({ format: 'date-time', description: 'When the platform saw the block leave.' }),
        }),
        { maxItems: REORGS_LISTED, description: 'The blocks that held it and left the canonical chain, oldest first.' },
      ),
    }),
    example: {
      transaction: exampleTransaction,
      reorgs: [
        {
          blockNumber: exampleTransaction.blockNumber - 1,
          blockHash: '0x6b1f2f3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8',
          transactionHash: exampleTransaction.transactionHash,
          reorgedAt: '2026-11-20T10:15:30.500Z',
        },
      ],
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ query, principal, deps }) {
    const transaction = await getTransaction(deps.db, projectOf(principal), query.transactionId);
    return { transaction, reorgs: await transactionReorgs(deps.db, transaction.id) };
  },
});
