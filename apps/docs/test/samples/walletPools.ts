// Docs sample checks: the wallet pools page (add-system-wallets, the pool's balances, tokens moved from the pinned
// primary wallet, an ordering key, the pool's limit).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { apiKey } from '@mountain/api/testing';
import { answer, type Context, type Json, lines, ok, RECIPIENT, type Step, sameShape } from './context.ts';

/** The testnet wallets of the pool, in pool order (the primary first), as add-system-wallets answered them. */
const testnetPool = (c: Context): Json[] =>
  c.values.poolAdded.data.mSystemWallets.filter((w: Json) => w.networkType === 'testnet');

export const walletPoolSteps: Record<string, Step> = {
  'add-system-wallets': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'add-system-wallets', 201);
      const wallets = body.data.mSystemWallets as Json[];
      assert.deepEqual(
        wallets.map((w) => w.networkType),
        ['mainnet', 'testnet', 'testnet', 'testnet', 'testnet'],
      );
      assert.deepEqual(wallets[0], body.data.mSystemWalletMainnet, 'the primary wallets first');
      assert.deepEqual(wallets[1], body.data.mSystemWalletTestnet);
      assert.equal(body.data.mSystemWalletTestnet.address, c.wallet, 'the primary wallet stays the primary');
      assert.equal(new Set(wallets.map((w) => w.address)).size, 5, 'every wallet its own address');
      for (const w of wallets) assert.deepEqual([w.type, w.ownerType, w.custody], ['from-mnemonic', 'dedicated', null]);
      c.values.poolAdded = body;
    },
  },
  'pool-wallets-added': {
    kind: 'shape',
    check: (code, c) => {
      const shown = JSON.parse(code);
      sameShape(shown, c.values.poolAdded);
      const real = c.values.poolAdded.data.mSystemWallets as Json[];
      const kinds = (wallets: Json[]) => wallets.map((w) => `${w.type} ${w.networkType}`);
      assert.deepEqual(kinds(shown.data.mSystemWallets), kinds(real));
    },
  },
  'pool-balances': {
    kind: 'run',
    check: async (out, c) => {
      const body = answer(out, c, 'get-wallet-balances', 200);
      // The deployment reads 1337 only: one entry per testnet wallet, the new ones empty.
      const [primary, ...added] = testnetPool(c);
      assert.deepEqual(
        body.balances.map((b: Json) => `${b.systemWalletId} ${b.networkId}`).sort(),
        [primary, ...added].map((w) => `${w.id} 1337`).sort(),
      );
      for (const w of added) {
        const entry = body.balances.find((b: Json) => b.systemWalletId === w.id);
        assert.deepEqual(
          [entry.address, entry.balance, entry.error, entry.low],
          [w.address, '0', null, true],
          'a new wallet holds nothing',
        );
      }
      c.values.poolBalances = body;
    },
  },
  'pool-balances-listed': {
    kind: 'shape',
    check: (code, c) => {
      const shown = JSON.parse(code);
      c.h.validator.assertResponse('get-wallet-balances', 200, shown);
      sameShape(shown, c.values.poolBalances);
      // The page's entries as the real ones of the primary wallet and of a new one, but for ids and addresses.
      const [primary, added] = testnetPool(c);
      const real = (id: number) => c.values.poolBalances.balances.find((b: Json) => b.systemWalletId === id);
      const omit = ({ systemWalletId: _id, address: _address, balance: _balance, ...rest }: Json) => rest;
      assert.deepEqual(shown.balances.map(omit), [real(primary.id), real(added.id)].map(omit));
      assert.equal(shown.balances[1].balance, real(added.id).balance);
      assert.ok(BigInt(real(primary.id).balance) >= BigInt(shown.balances[0].lowBalanceThreshold));
    },
  },
  'pool-token-funding': {
    kind: 'run',
    // What the page says of a transfer from a new wallet, which holds no tokens: it is refused.
    prepare: async (c) => {
      const res = await c.h.call('execute-transaction', {
        headers: apiKey(c.key),
        body: {
          contractActivatedFunctionId: Number(c.env.MOUNTAIN_FUNCTION_ID),
          functionArgs: [RECIPIENT, '10000'],
          idempotencyKey: 'pool-transfer-from-a-new-wallet',
          mSystemWalletId: testnetPool(c)[1].id,
        },
      });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'EXECUTION_REVERTED');
    },
    check: async (out, c) => {
      ok(out);
      const [, ...added] = testnetPool(c);
      assert.deepEqual(
        lines(out),
        added.map((w) => `${w.address} succeeded true`),
      );
      for (const w of added) assert.equal(await c.token.balanceOf(w.address), 10_000n);
    },
  },
  'ordering-key': {
    kind: 'run',
    check: async (out, c) => {
      ok(out);
      // A new key: the pool's wallet its hash names, here one the sample above funded.
      const pool = testnetPool(c);
      const position = createHash('sha256').update('customer-77').digest().readUInt32BE(0) % pool.length;
      const named = pool[position];
      assert.notEqual(position, 0, 'the page says a funded wallet of the pool sends, not the primary');
      const printed = lines(out).map((line) => line.split(' '));
      assert.equal(printed.length, 3);
      for (const [key, wallet, , status] of printed) {
        assert.deepEqual([key, Number(wallet), status], ['customer-77', named.id, 'succeeded']);
      }
      const nonces = printed.map(([, , nonce]) => Number(nonce));
      assert.deepEqual(
        nonces,
        [...nonces].sort((a, b) => a - b),
        'nonces in acceptance order',
      );
      assert.equal(new Set(nonces).size, 3);
      assert.equal(await c.token.balanceOf(named.address), 10_000n - 600n);
    },
  },
  'wallet-limit': {
    kind: 'run',
    check: async (out, c) => {
      const body = answer(out, c, 'add-system-wallets', 409);
      assert.equal(body.code, 'WALLET_LIMIT_REACHED');
      c.values.walletLimit = body;
      const detail = await c.h.call('get-project-detail', { headers: apiKey(c.key) });
      assert.equal(detail.body.data.mSystemWallets.length, 5, 'nothing was added');
    },
  },
  'wallet-limit-reached': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.walletLimit),
  },
};
