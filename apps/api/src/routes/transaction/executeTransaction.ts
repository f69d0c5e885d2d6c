import Type from 'typebox';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { Transaction } from '#api/schemas/entities.ts';
import { exampleTransaction } from '#api/schemas/examples.ts';
import { FunctionArgsField, RequestUuid, WeiString } from '#api/schemas/requests.ts';
import { executeTransaction, MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS } from '#api/transactions/executeTransaction.ts';

export default defineRoute({
  method: 'POST',
  url: '/transaction/execute-transaction',
  operationId: 'execute-transaction',
  tag: 'Transaction',
  summary: 'Execute an activated function on chain',
  description:
    'Calls an activated contract function from one of the project’s system wallets (mainnet or testnet, by the contract’s network; with a pool of several, the one with the most free in-flight room, unless `mSystemWalletId` or `orderingKey` decides). `functionArgs` are strings converted by the function’s ABI types. The call is simulated first: a revert answers 4xx with the reason and creates nothing. The transaction is then queued and moves through its lifecycle; poll get-transaction. A `value` (wei) pays a payable function, or, on an activated `receive()` with `functionArgs: []`, is a plain transfer; it must fit in the activation’s `maxValuePerTransaction` and what is left of its `maxValuePerDay` (UTC day), and the system wallet must hold it. `idempotencyKey` makes retries safe: the same key with the same body returns the original transaction; with a different body, 409.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      contractActivatedFunctionId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
      functionArgs: FunctionArgsField,
      idempotencyKey: Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Unique per project; reuse it to retry the same request safely.',
      }),
      afterTransactionId: Type.Optional(
        RequestUuid(
          'A transaction of the same project and network that must succeed first: this one stays `created` until then, and is simulated, estimated and sent only after it; if that one ends any other way, this one ends `broadcast-failed`, never sent.',
        ),
      ),
      value: Type.Optional(
        WeiString(
          'The value to send with the call (default "0"): only to a payable function or a contract’s `receive()`, within the spending limits of its activation.',
        ),
      ),
      timeoutSeconds: Type.Optional(
        Type.Integer({
          minimum: MIN_TIMEOUT_SECONDS,
          maximum: MAX_TIMEOUT_SECONDS,
          description:
            'A deadline, in seconds from now (30 to 604800, 7 days): not mined by then, the transaction is cancelled as cancel-transaction does (not sent yet: `cancelled`; sent: `cancelling`, then whichever version the chain mines), its `errorMessage` saying it timed out. The transaction shows it as `expiresAt`.',
        }),
      ),
      mSystemWalletId: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 2_147_483_647,
          description:
            'Send from this wallet of the project’s pool (an id of `mSystemWallets` in get-project-detail, of the contract’s network type). Absent: the platform chooses.',
        }),
      ),
      orderingKey: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 256,
          description:
            'Transactions of the project with the same key (on one network) go through one wallet of its pool, so they are sent with increasing nonces and mined in acceptance order. Absent: the platform spreads transactions over the pool by free in-flight room.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  requestExample: {
    contractActivatedFunctionId: exampleTransaction.contractActivatedFunctionId,
    functionArgs: exampleTransaction.functionArgs,
    idempotencyKey: exampleTransaction.idempotencyKey,
  },
  response: {
    status: 201,
    description: 'The accepted transaction.',
    schema: Type.Object({ transaction: Transaction }),
    example: {
      transaction: {
        ...exampleTransaction,
        status: 'created',
        transactionHash: null,
        nonce: null,
        gasPrice: null,
        gasLimit: null,
        gasUsed: null,
        blockNumber: null,
        updatedAt: exampleTransaction.createdAt,
      },
    },
  },
  errors: [
    'NOT_FOUND',
    'CONFLICT',
    'FUNCTION_NOT_ACTIVE',
    'FUNCTION_NOT_PAYABLE',
    'SPENDING_LIMIT_EXCEEDED',
    'INSUFFICIENT_FUNDS',
    'EXECUTION_REVERTED',
    'NETWORK_NOT_CONFIGURED',
    'CUSTODY_NOT_CONFIGURED',
    'CHAIN_UNAVAILABLE',
  ],
  async handler({ body, principal, deps }) {
    return { transaction: await executeTransaction(deps, projectOf(principal), body) };
  },
});
