import Type from 'typebox';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { Transaction } from '#api/schemas/entities.ts';
import { exampleTransaction } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { CANCELLED_BY_REQUEST, cancelTransaction } from '#api/transactions/cancel.ts';

export default defineRoute({
  method: 'POST',
  url: '/transaction/cancel-transaction',
  operationId: 'cancel-transaction',
  tag: 'Transaction',
  summary: 'Cancel a transaction that is not mined',
  description:
    'A transaction not sent yet (`created`) is `cancelled` at once: never sent, and its nonce is never taken (the next transaction takes it). A sent one that is not mined (`broadcasted`) becomes `cancelling`: its wallet’s monitor sends, at its nonce, a 0-value transfer to the wallet itself with both fees at least 10% above the original’s and above the network’s current fees, never above the network’s fee cap (`MAX_FEE_PER_GAS_GWEI_<networkId>`). Whichever of the two the chain mines decides: the transfer → `cancelled` (a `transaction.cancelled` event); the original → its own outcome (`succeeded` or `reverted`, its `errorMessage` saying it was mined before its cancellation). One being signed at this very moment (`processing`) becomes `cancelling` once sent. Reorgs are followed both ways. Asking again answers the transaction as it is. A mined transaction answers 409; one ended without being mined 409; one a custodian (Fireblocks) already holds, 422.',
  auth: { roles: WRITERS },
  body: Type.Object({ transactionId: RequestUuid('The transaction to cancel.') }, { additionalProperties: false }),
  requestExample: { transactionId: exampleTransaction.id },
  response: {
    status: 200,
    description: 'The cancel is made or under way; the transaction as it is now (`cancelled` or `cancelling`).',
    schema: Type.Object({ transaction: Transaction }),
    example: {
      transaction: {
        ...exampleTransaction,
        status: 'cancelled',
        transactionHash: null,
        nonce: null,
        gasUsed: null,
        blockNumber: null,
        confirmations: null,
        finalized: false,
        errorMessage: CANCELLED_BY_REQUEST,
      },
    },
  },
  errors: ['NOT_FOUND', 'TRANSACTION_ALREADY_MINED', 'TRANSACTION_NOT_PENDING'],
  async handler({ body, principal, deps }) {
    return { transaction: await cancelTransaction(deps.db, projectOf(principal), body.transactionId) };
  },
});
