// Docs sample checks: the transactions best-practices page (approve, then transferFrom chained with
// afterTransactionId).
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { type Context, lines, ok, RECIPIENT, type Step } from './context.ts';

const TRANSFER_FROM = 'function transferFrom(address from, address to, uint256 amount) returns (bool)';

/** anvil mines a block every second while the sample runs, as a real chain takes its time, then at once again. */
const mining = (c: Context, seconds: number) =>
  readClient(c.anvil.url).request({ method: 'evm_setIntervalMining' as never, params: [seconds] as never });

const transaction = async (c: Context, transactionId: string) => {
  const res = await c.h.call('get-transaction', { headers: apiKey(c.key), query: { transactionId } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.transaction;
};

export const bestPracticeSteps: Record<string, Step> = {
  'chained-steps': {
    kind: 'run',
    // The point of the chain: without the approval, the wallet's transferFrom of its own tokens reverts, and
    // execute-transaction refuses it.
    prepare: async (c) => {
      assert.equal(await c.token.allowance(c.wallet, c.wallet), 0n);
      const activated = await c.h.call('activate-contract-function', {
        headers: apiKey(c.key),
        body: { contractId: Number(c.env.MOUNTAIN_CONTRACT_ID), formattedAbiFunction: TRANSFER_FROM },
      });
      assert.equal(activated.status, 201, JSON.stringify(activated.body));
      const alone = await c.h.call('execute-transaction', {
        headers: apiKey(c.key),
        body: {
          contractActivatedFunctionId: activated.body.contractActivatedFunction.id,
          functionArgs: [c.wallet, RECIPIENT, '300'],
          idempotencyKey: 'transfer-from-without-approval',
        },
      });
      assert.equal(alone.status, 422, JSON.stringify(alone.body));
      assert.equal(alone.body.code, 'EXECUTION_REVERTED');
      assert.equal(alone.body.message, 'The call reverts: InsufficientAllowance(0, 300)', 'as the page quotes it');
      c.values.beforeChain = {
        wallet: await c.token.balanceOf(c.wallet),
        recipient: await c.token.balanceOf(RECIPIENT),
      };
      await mining(c, 1);
    },
    check: async (out, c) => {
      await mining(c, 0);
      await readClient(c.anvil.url).request({ method: 'evm_setAutomine' as never, params: [true] as never });
      ok(out);
      const [waiting, approved, moved, ...rest] = lines(out);
      assert.deepEqual(rest, []);
      const [first, second] = await chain(c);
      assert.equal(waiting, `created Waiting for transaction ${first.id} to succeed`);
      assert.equal(approved, `succeeded ${first.blockNumber}`);
      assert.equal(moved, `succeeded ${second.blockNumber}`);
      assert.ok(second.blockNumber > first.blockNumber, 'the transferFrom was sent after the approval was mined');
      assert.equal(second.afterTransactionId, first.id);
      assert.equal(second.errorMessage, null);
      assert.deepEqual(second.functionArgs, [c.wallet, RECIPIENT, '300']);
      const before = c.values.beforeChain as { wallet: bigint; recipient: bigint };
      assert.equal(before.wallet - (await c.token.balanceOf(c.wallet)), 300n);
      assert.equal((await c.token.balanceOf(RECIPIENT)) - before.recipient, 300n);
      assert.equal(await c.token.allowance(c.wallet, c.wallet), 0n, 'the transferFrom spent the whole allowance');
    },
  },
};

/** The sample's two transactions, the approval first, found by the keys the page gives them. */
async function chain(c: Context) {
  const res = await c.h.call('get-transactions', { headers: apiKey(c.key), query: { perPage: '100' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const byKey = (key: string) => {
    const found = res.body.data.transactions.find((t: { idempotencyKey: string }) => t.idempotencyKey === key);
    assert.ok(found, `no transaction with the key ${key}`);
    return transaction(c, found.id);
  };
  return Promise.all([byKey('order-1044-approve'), byKey('order-1044-transfer')]);
}
