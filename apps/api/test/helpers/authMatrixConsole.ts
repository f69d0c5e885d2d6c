// The matrix rows of the operations the developer console added (see authMatrix.ts).
import assert from 'node:assert/strict';
import type { ActingIn, MatrixFixture, MatrixOperation } from './authMatrix.ts';

type Hour = { succeeded: number; reverted: number; failed: number; pending: number };

export const CONSOLE_MATRIX_OPERATIONS: Record<string, MatrixOperation> = {
  'get-project-members': {
    request: () => ({}),
    check(res, _f, actingIn) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      // A has its reader, editor, admin and expired-token admin; B its one admin.
      assert.equal(res.body.members.length, actingIn === 'A' ? 4 : 1);
    },
  },
  'rotate-api-key': {
    request: () => ({}),
    check(res, f, actingIn) {
      assert.equal(res.status, 201, JSON.stringify(res.body));
      // The project's key changed: the callers after this one use the new key.
      if (actingIn === 'A') f.keyA = res.body.apiKey;
      else f.keyB = res.body.apiKey;
    },
  },
  'get-statistics': {
    request: () => ({}),
    check(res, _f, actingIn: ActingIn) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const hours = res.body.statistics.transactionsPerHour as Hour[];
      const total = hours.reduce((sum, h) => sum + h.succeeded + h.reverted + h.failed + h.pending, 0);
      if (actingIn === 'A') assert.ok(total >= 1, 'A has executed transactions');
      else assert.equal(total, 0, 'nothing of A counted for B');
    },
  },
  'get-wallet-balances': {
    request: () => ({}),
    check(res, f, actingIn: ActingIn) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const balances = res.body.balances as { address: string; networkId: number; balance: string }[];
      // The harness configures the local chain only: each project's testnet wallet, once.
      assert.deepEqual(
        balances.map((b) => b.networkId),
        [1337],
      );
      assert.match(balances[0]?.balance ?? '', /^\d+$/);
      assert.equal(balances[0]?.address === f.walletA, actingIn === 'A', 'A sees its wallet; B, never A’s');
    },
  },
  'exchange-console-link': {
    // No credentials are read: whoever calls, a fresh link's code signs its own user in.
    request: (f: MatrixFixture) => ({ body: { code: f.consoleLinkCodes.pop() } }),
    check(res, f) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.projectId, f.projectA);
    },
  },
};
