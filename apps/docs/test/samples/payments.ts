// Docs sample checks: the payments page (a payout to an address without code, inside spending limits).
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { settled } from '@mountain/api/testing/transactionFlow.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { answer, type Context, type Step, sameShape } from './context.ts';

/** The recipient the page pays: an address without code. */
const PAYEE = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

const balance = (c: Context) => readClient(c.anvil.url).getBalance({ address: PAYEE });

export const paymentSteps: Record<string, Step> = {
  'import-payout-recipient': {
    kind: 'run',
    check: async (out, c) => {
      const body = answer(out, c, 'import-contract', 201);
      assert.equal(body.contract.address, PAYEE);
      assert.equal(await readClient(c.anvil.url).getCode({ address: PAYEE }), undefined, 'the payee runs no code');
      c.env.MOUNTAIN_RECIPIENT_ID = String(body.contract.id);
    },
  },
  'activate-receive': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'activate-contract-function', 201);
      assert.equal(body.contractActivatedFunction.maxValuePerTransaction, '500000000000000000');
      assert.equal(body.contractActivatedFunction.maxValuePerDay, '2000000000000000000');
      c.values.receiveActivated = body;
      c.env.MOUNTAIN_PAYOUT_FUNCTION_ID = String(body.contractActivatedFunction.id);
    },
  },
  'receive-activated': {
    kind: 'shape',
    check: (code, c) => {
      const shown = JSON.parse(code);
      c.h.validator.assertResponse('activate-contract-function', 201, shown);
      const { id: _, contractId: __, ...limits } = shown.contractActivatedFunction;
      const { id: ___, contractId: ____, ...real } = c.values.receiveActivated.contractActivatedFunction;
      assert.deepEqual(limits, real);
    },
  },
  'execute-payout': {
    kind: 'run',
    prepare: async (c) => {
      c.values.payeeBefore = await balance(c);
    },
    check: async (out, c) => {
      const body = answer(out, c, 'execute-transaction', 201);
      assert.equal(body.transaction.value, '250000000000000000');
      c.values.payout = body;
      const done = await settled(c.h, apiKey(c.key), body.transaction.id);
      assert.equal(done.status, 'succeeded', done.errorMessage);
      assert.equal((await balance(c)) - (c.values.payeeBefore as bigint), 250_000_000_000_000_000n, 'received in full');
      const sent = await readClient(c.anvil.url).getTransaction({ hash: done.transactionHash });
      assert.equal(sent.input, '0x', 'a plain transfer');
    },
  },
  'payout-created': {
    kind: 'shape',
    check: (code, c) => {
      const shown = JSON.parse(code);
      sameShape(shown, c.values.payout);
      assert.equal(shown.transaction.value, c.values.payout.transaction.value);
      assert.deepEqual(shown.transaction.functionArgs, []);
    },
  },
  'payout-over-limit': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'execute-transaction', 422);
      assert.equal(body.code, 'SPENDING_LIMIT_EXCEEDED');
      c.values.payoutRefused = body;
    },
  },
  'payout-refused': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.payoutRefused),
  },
};
