// Pool wallets of the custodians outside the database, against their simulators: add-system-wallets makes a KMS key
// or a Fireblocks vault account per wallet, named by its pool position (asked again, the custodian finds the same
// one instead of making a second), and a transaction pinned to a pool wallet is signed by that wallet's key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientOf, custodianOf } from '#api/wallets/custodians.ts';
import { settled } from '#api-testing/transactionFlow.ts';
import { type FireblocksPlatform, startFireblocksPlatform } from './fireblocksFixture.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

type Wallet = { id: number; address: string; networkType: string; custody: Record<string, string> | null };

/** Adds two testnet wallets; answers the pool's new wallets (those past the primary). */
async function addTwo(h: KmsPlatform['h'], headers: Record<string, string>): Promise<Wallet[]> {
  const res = await h.call('add-system-wallets', { headers, body: { networkType: 'testnet', count: 2 } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const pool = (res.body.data.mSystemWallets as Wallet[]).filter((w) => w.networkType === 'testnet');
  assert.equal(pool.length, 3);
  assert.equal(new Set(pool.map((w) => w.address.toLowerCase())).size, 3, 'each wallet its own address');
  return pool.slice(1);
}

/** Executes an increment from `wallet` and answers the settled transaction. */
async function executeFrom(
  h: KmsPlatform['h'],
  p: { headers: Record<string, string>; ids: Record<string, number> },
  wallet: Wallet,
) {
  const res = await h.call('execute-transaction', {
    headers: p.headers,
    body: {
      contractActivatedFunctionId: p.ids.increment,
      functionArgs: ['1'],
      idempotencyKey: `pinned-${wallet.id}`,
      mSystemWalletId: wallet.id,
    },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.transaction.mSystemWalletId, wallet.id);
  const done = await settled(h, p.headers, res.body.transaction.id, 30_000);
  assert.equal(done.status, 'succeeded', JSON.stringify(done));
  return done;
}

describe('pool wallets of AWS KMS', () => {
  let f: KmsPlatform;
  before(async () => {
    f = await startKmsPlatform();
  });
  after(() => f?.stop());

  it('adds a key per wallet, named by its position, found again when asked again, that signs', async () => {
    const p = await f.project(['increment']);
    const added = await addTwo(f.h, p.headers);
    const aliases = f.sim.aliases().map((a) => a.aliasName);
    for (const position of [1, 2]) {
      assert.ok(aliases.includes(`alias/mountain-test-project-${p.projectId}-testnet-${position}`), aliases.join());
    }
    assert.deepEqual(
      added.map((w) => w.custody?.provider),
      ['aws-kms', 'aws-kms'],
    );
    // The same positions again (a request run again after a failure): the same keys, no new one.
    const keysBefore = f.sim.keys().length;
    const custodian = custodianOf('aws-kms');
    const again = await custodian.addWallets(
      { db: f.h.db, projectId: p.projectId, projectName: 'again', networkType: 'testnet', positions: [1, 2] },
      { keys: f.h.keys, client: clientOf(custodian, f.h.deps.custodians ?? {}) },
    );
    assert.deepEqual(
      again.map((w) => w.ref),
      added.map((w) => w.custody?.keyArn),
    );
    assert.equal(f.sim.keys().length, keysBefore);
    const wallet = added[1] as Wallet;
    const done = await executeFrom(f.h, p, wallet);
    await f.assertSignedBy(done.transactionHash, wallet.address);
  });
});

describe('pool wallets of Fireblocks', () => {
  let f: FireblocksPlatform;
  before(async () => {
    f = await startFireblocksPlatform();
  });
  after(() => f?.stop());

  it('adds a vault account per wallet, named by its position, found again when asked again, that sends', async () => {
    const p = await f.project(['increment']);
    const added = await addTwo(f.h, p.headers);
    const vaults = f.sim.vaultAccounts();
    for (const [i, wallet] of added.entries()) {
      const vault = vaults.find((v) => v.id === wallet.custody?.vaultAccountId);
      assert.equal(vault?.name, `mountain-test-project-${p.projectId}-testnet-${i + 1}`);
      assert.equal(vault?.address.toLowerCase(), wallet.address.toLowerCase());
    }
    const custodian = custodianOf('fireblocks');
    const again = await custodian.addWallets(
      { db: f.h.db, projectId: p.projectId, projectName: 'again', networkType: 'testnet', positions: [1, 2] },
      { keys: f.h.keys, client: clientOf(custodian, f.h.deps.custodians ?? {}) },
    );
    assert.deepEqual(
      again.map((w) => String(w.ref)),
      added.map((w) => w.custody?.vaultAccountId),
    );
    assert.equal(f.sim.vaultAccounts().length, vaults.length, 'no second vault account');
    const wallet = added[0] as Wallet;
    const done = await executeFrom(f.h, p, wallet);
    const onChain = await f.chain.getTransaction({ hash: done.transactionHash });
    assert.equal(onChain.from.toLowerCase(), wallet.address.toLowerCase());
  });
});
