import Type from 'typebox';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { Transaction } from '#api/schemas/entities.ts';
import { exampleTransaction } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { DEFAULT_FEE_MULTIPLIER, speedUpTransaction } from '#api/transactions/speedUp.ts';

export default defineRoute({
  method: 'POST',
  url: '/transaction/speed-up-transaction',
  operationId: 'speed-up-transaction',
  tag: 'Transaction',
  summary: 'Speed up a waiting transaction',
  description:
    'Re-signs a `broadcasted` transaction that is not mined yet at the same nonce, with the same call and value, and both fees multiplied by `feeMultiplier` (or raised to the network’s current fees with headroom, if higher), never above the network’s fee cap (`MAX_FEE_PER_GAS_GWEI_<networkId>`), and sends it. The wallet’s monitor does it within a moment of the answer: get-transaction then shows the new `gasPrice` and `transactionHash`. Every hash is kept: whichever version the chain mines gives the outcome. A transaction not sent yet, or ended, answers 409; a mined one 409; one a custodian (Fireblocks) signs, 422.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      transactionId: RequestUuid('The transaction to speed up.'),
      feeMultiplier: Type.Optional(
        Type.Number({
          minimum: 1.1,
          maximum: 10,
          description: `How much to multiply both fees by: 1.1 to 10, rounded to hundredths (${DEFAULT_FEE_MULTIPLIER} when absent). A replacement needs at least 10% more on both to be taken by nodes.`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  requestExample: { transactionId: exampleTransaction.id, feeMultiplier: 2 },
  response: {
    status: 200,
    description: 'The speed-up is asked for; the transaction as it is now.',
    schema: Type.Object({ transaction: Transaction }),
    example: {
      transaction: {
        ...exampleTransaction,
        status: 'broadcasted',
        gasUsed: null,
        blockNumber: null,
        confirmations: null,
        finalized: false,
      },
    },
  },
  errors: ['NOT_FOUND', 'TRANSACTION_ALREADY_MINED', 'TRANSACTION_NOT_PENDING'],
  async handler({ body, principal, deps }) {
    return {
      transaction: await speedUpTransaction(
        deps.db,
        projectOf(principal),
        body.transactionId,
        Math.round((body.feeMultiplier ?? DEFAULT_FEE_MULTIPLIER) * 100) / 100,
      ),
    };
  },
});
