// Docs sample checks: contracts, functions and transactions (services pages and the client's operations).
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { settled } from '@mountain/api/testing/transactionFlow.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { parseAbi } from 'viem';
import { DOCS_TOKEN_ADDRESS } from '../helpers/docsToken.ts';
import { jsonDocuments } from '../helpers/samples.ts';
import { answer, type Context, type Json, lines, ok, RECIPIENT, type Step, sameShape } from './context.ts';

export const transactionSteps: Record<string, Step> = {
  'import-contract': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'import-contract', 201);
      c.values.contract = body;
      c.env.MOUNTAIN_CONTRACT_ID = String(body.contract.id);
    },
  },
  'contract-imported': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.contract),
  },
  'get-contracts': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'get-contracts', 200);
      assert.deepEqual(body.contracts, [c.values.contract.contract]);
    },
  },
  'client-errors': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['Already imported']);
    },
  },
  'client-request-options': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), [`1337 ${DOCS_TOKEN_ADDRESS}`]);
    },
  },
  'formatted-abi': {
    kind: 'shape',
    check: async (code, c) => {
      const entries = JSON.parse(code) as string[];
      assert.equal(parseAbi(entries).length, entries.length);
      const other = await c.h.project('ABI check');
      const res = await c.h.call('import-contract', {
        headers: apiKey(other.apiKey),
        body: { networkId: 1337, address: DOCS_TOKEN_ADDRESS, formattedAbi: entries },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    },
  },
  'activate-function': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'activate-contract-function', 201);
      c.values.activated = body;
      c.env.MOUNTAIN_FUNCTION_ID = String(body.contractActivatedFunction.id);
    },
  },
  'function-activated': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.activated),
  },
  'get-activated-functions': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'get-contract-activated-functions', 200);
      assert.deepEqual(body.contractActivatedFunctions, [c.values.activated.contractActivatedFunction]);
    },
  },
  'call-contract-function': {
    kind: 'run',
    check: async (out, c) => {
      const body = answer(out, c, 'call-contract-function', 200);
      assert.deepEqual(body.result, [String(await c.token.balanceOf(RECIPIENT))]);
      c.values.called = body;
    },
  },
  'contract-function-called': {
    kind: 'shape',
    check: (code, c) => sameShape(JSON.parse(code), c.values.called),
  },
  'execute-transaction': {
    kind: 'run',
    // The reader's wallet holds tokens; and one transaction has failed, for the status filters below: two
    // transfers of the whole balance both pass simulation, then the second reverts on chain.
    prepare: async (c) => {
      await c.token.send(c.wallet, 500n);
      const chain = readClient(c.anvil.url);
      await chain.request({ method: 'evm_setAutomine' as never, params: [false] as never });
      try {
        const sent = [];
        for (const key of ['setup-a', 'setup-b']) {
          const res = await c.h.call('execute-transaction', {
            headers: apiKey(c.key),
            body: {
              contractActivatedFunctionId: Number(c.env.MOUNTAIN_FUNCTION_ID),
              functionArgs: [RECIPIENT, '500'],
              idempotencyKey: key,
            },
          });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          sent.push(res.body.transaction.id as string);
        }
        for (const id of sent) {
          await waitFor(async () => {
            const res = await c.h.call('get-transaction', { headers: apiKey(c.key), query: { transactionId: id } });
            return res.body.transaction.status === 'broadcasted' ? true : undefined;
          });
        }
        await chain.request({ method: 'evm_mine' as never, params: [] as never });
      } finally {
        await chain.request({ method: 'evm_setAutomine' as never, params: [true] as never });
      }
      const done = await Promise.all(
        ['setup-a', 'setup-b'].map(async (key) => {
          const again = await c.h.call('execute-transaction', {
            headers: apiKey(c.key),
            body: {
              contractActivatedFunctionId: Number(c.env.MOUNTAIN_FUNCTION_ID),
              functionArgs: [RECIPIENT, '500'],
              idempotencyKey: key,
            },
          });
          return settled(c.h, apiKey(c.key), again.body.transaction.id);
        }),
      );
      c.values.failed = done.find((t) => t.status === 'reverted');
      assert.ok(c.values.failed, JSON.stringify(done));
      await c.token.send(c.wallet, 1_000_000n);
    },
    check: (out, c) => {
      const body = answer(out, c, 'execute-transaction', 201);
      assert.equal(body.transaction.status, 'created');
      c.values.transaction = body.transaction;
      c.env.MOUNTAIN_TRANSACTION_ID = body.transaction.id;
    },
  },
  'transaction-created': {
    kind: 'shape',
    check: (code, c) => {
      const { id, ...example } = JSON.parse(code).transaction;
      const real = c.values.transaction;
      assert.match(id, /^[0-9a-f-]{36}$/);
      for (const [k, v] of Object.entries(example)) assert.deepEqual(v, real[k], k);
    },
  },
  'get-transaction': {
    kind: 'run',
    prepare: async (c) => {
      await settled(c.h, apiKey(c.key), c.env.MOUNTAIN_TRANSACTION_ID as string);
    },
    check: (out, c) => {
      const body = answer(out, c, 'get-transaction', 200);
      assert.equal(body.transaction.status, 'succeeded', body.transaction.errorMessage);
      c.values.succeeded = body.transaction;
    },
  },
  'transaction-succeeded': {
    kind: 'shape',
    check: (code, c) => {
      const example = JSON.parse(code).transaction;
      sameShape(example, c.values.succeeded);
      assert.equal(example.status, c.values.succeeded.status);
      assert.equal(example.errorMessage, c.values.succeeded.errorMessage);
      assert.equal(example.transactionHash.length, 66);
    },
  },
  // The Fireblocks page's examples: valid answers (every field the page shows is one the server answers, and the
  // whole, completed with the fields it abridges, matches the OpenAPI document).
  'fireblocks-wallet': {
    kind: 'shape',
    check: (code, c) => assert.equal(custodianWallet(code, c).custody.provider, 'fireblocks'),
  },
  // The AWS KMS page's wallet, checked the same way.
  'kms-wallet': {
    kind: 'shape',
    check: (code, c) => {
      const shown = custodianWallet(code, c);
      assert.equal(shown.custody.provider, 'aws-kms');
      assert.ok(shown.custody.keyArn.endsWith(`:key/${shown.custody.keyId}`));
    },
  },
  'fireblocks-transaction': {
    kind: 'shape',
    check: (code, c) => {
      const shown = JSON.parse(code).transaction;
      for (const k of Object.keys(shown)) assert.ok(k in c.values.succeeded, k);
      c.h.validator.assertResponse('get-transaction', 200, {
        transaction: { ...c.values.succeeded, ...shown },
        reorgs: [],
      });
      assert.equal(shown.custody.status, 'PENDING_AUTHORIZATION');
    },
  },
  'client-operations': {
    kind: 'run',
    check: (out, c) => {
      ok(out);
      const [address, final] = lines(out);
      assert.equal(address, c.wallet);
      assert.match(final ?? '', /^succeeded 0x[0-9a-f]{64}$/);
    },
  },
  'list-failed-transactions': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'get-transactions', 200);
      assert.deepEqual(body.meta, { pageNumber: 1, perPage: 20, totalPage: 1, totalItems: 1 });
      assert.equal(body.data.transactions[0].id, c.values.failed.id);
    },
  },
  'status-filter': {
    kind: 'run',
    check: (out, c) => {
      const [failed, reverted] = jsonDocuments(out.stdout) as Json[];
      for (const body of [failed, reverted]) c.h.validator.assertResponse('get-transactions', 200, body);
      assert.deepEqual(
        failed.data.transactions.map((t: { id: string }) => t.id),
        [c.values.failed.id],
      );
      assert.deepEqual(
        reverted.data.transactions.map((t: { status: string }) => t.status),
        ['reverted'],
      );
    },
  },
  'client-pagination': {
    kind: 'run',
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`${c.values.failed.id} reverted ${c.values.failed.errorMessage}`]);
      assert.match(c.values.failed.errorMessage, /InsufficientBalance\(0, 500\)/);
    },
  },
};

/**
 * A custodian's wallet as a docs page shows it: every field one of the real answer's, and the real project detail with
 * that wallet in place of both still valid against the OpenAPI document. Returns the wallet shown.
 */
function custodianWallet(code: string, c: Context): Json {
  const shown = JSON.parse(code);
  const detail = c.values.projectDetail.data;
  for (const k of Object.keys(shown)) assert.ok(k in detail.mSystemWalletTestnet, k);
  const wallet = { ...detail.mSystemWalletTestnet, ...shown };
  c.h.validator.assertResponse('get-project-detail', 200, {
    ...c.values.projectDetail,
    data: { ...detail, mSystemWalletMainnet: wallet, mSystemWalletTestnet: wallet },
  });
  return shown;
}
