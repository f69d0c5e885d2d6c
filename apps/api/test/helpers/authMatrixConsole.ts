// The matrix rows of the operations the developer console added (see authMatrix.ts).
import assert from 'node:assert/strict';
import { apiKey, type Harness } from '#api-testing/harness.ts';
import type { ActingIn, MatrixFixture } from './authMatrix.ts';
import type { MatrixOperation } from './authMatrixChecks.ts';

type Hour = { succeeded: number; reverted: number; failed: number; pending: number };

/** A token acting as the API key, from exchange-api-key. */
export async function exchangeKey(h: Harness, key: string): Promise<string> {
  const res = await h.call('exchange-api-key', { headers: apiKey(key) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.accessToken;
}

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
    async check(res, f, actingIn, h) {
      assert.equal(res.status, 201, JSON.stringify(res.body));
      // The project's key changed: the callers after this one use the new key, and a token of A's new key (the
      // rotation ended the tokens of the old one).
      if (actingIn === 'A') {
        f.keyA = res.body.apiKey;
        const before = f.keyTokenA;
        f.keyTokenA = await exchangeKey(h, f.keyA);
        const old = await h.call('get-project-detail', { headers: { authorization: `Bearer ${before}` } });
        assert.equal(old.status, 401, 'the old key’s token ends with it');
      } else f.keyB = res.body.apiKey;
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
  'exchange-api-key': {
    request: () => ({}),
    check(res, f, actingIn) {
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.projectId, actingIn === 'A' ? f.projectA : f.projectB);
      assert.ok(Date.parse(res.body.expiresAt) - Date.now() <= 15 * 60_000, 'a short-lived token');
    },
  },
  // Only a token of the key renews (the matrix's keyTok); the one it was called with stays valid until it expires.
  'renew-access-token': {
    request: () => ({}),
    check(res, f) {
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.projectId, f.projectA);
      f.keyTokenA = res.body.accessToken;
    },
  },
  // Ends the caller's token: the matrix runs it after every other operation, each caller with a token of its own.
  'revoke-access-token': {
    request: () => ({}),
    check(res) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(res.body.message, /revoked/);
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
