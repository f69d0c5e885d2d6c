import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileCounter } from '@mountain/testkit/testContract.ts';
import { incrementMany, settled } from '#api-testing/transactionFlow.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

describe('AWS KMS wallets: projects and executions signed through the simulated KMS on anvil', () => {
  let f: KmsPlatform;
  let p: Awaited<ReturnType<KmsPlatform['project']>>;

  before(async () => {
    f = await startKmsPlatform();
    p = await f.project(['increment']);
  });
  after(async () => {
    await f?.stop();
  });

  it('makes one key per wallet, named by its alias and tagged, and shows each wallet’s key and address', async () => {
    const detail = (await f.h.call('get-project-detail', { headers: p.headers })).body.data;
    const aliases = f.sim.aliases();
    for (const [wallet, networkType] of [
      [detail.mSystemWalletMainnet, 'mainnet'],
      [detail.mSystemWalletTestnet, 'testnet'],
    ] as const) {
      assert.equal(wallet.type, 'aws-kms');
      const alias = aliases.find((a) => a.aliasName === `alias/mountain-test-project-${p.projectId}-${networkType}`);
      assert.ok(alias, JSON.stringify(aliases));
      const key = f.sim.keys().find((k) => k.keyId === alias.targetKeyId);
      assert.equal(key?.keySpec, 'ECC_SECG_P256K1');
      assert.deepEqual(wallet.custody, { provider: 'aws-kms', keyArn: key?.arn, keyId: key?.keyId });
      assert.equal(key?.tags['mountain:project'], String(p.projectId));
      assert.equal(key?.tags['mountain:network-type'], networkType);
    }
    assert.notEqual(detail.mSystemWalletMainnet.address, detail.mSystemWalletTestnet.address);
  });

  it('executions succeed with canonical receipts; every signature is low-s and recovers to the wallet', async () => {
    const signsBefore = f.sim.succeeded.Sign ?? 0;
    const answers = await incrementMany(f.h, p, 30, 'kms-');
    for (const answer of answers) assert.equal(answer.body.transaction.custody, null);
    const done = await Promise.all(answers.map((a) => settled(f.h, p.headers, a.body.transaction.id, 60_000)));
    const nonces: number[] = [];
    for (const tx of done) {
      assert.equal(tx.status, 'succeeded', tx.errorMessage);
      const receipt = await f.chain.getTransactionReceipt({ hash: tx.transactionHash });
      assert.equal(tx.blockNumber, Number(receipt.blockNumber));
      assert.equal(tx.gasUsed, receipt.gasUsed.toString());
      await f.assertSignedBy(tx.transactionHash, p.wallet);
      nonces.push(tx.nonce);
    }
    nonces.sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      nonces.map((_, i) => (nonces[0] as number) + i),
      'contiguous nonces',
    );
    assert.equal((f.sim.succeeded.Sign ?? 0) - signsBefore, 30, 'one signature per transaction');
    const count = await f.chain.readContract({
      address: f.counter,
      abi: compileCounter().abi,
      functionName: 'count',
    } as never);
    assert.equal(count, 465n);
  });

  it('throttling and 5xx from KMS are retried: nothing fails, nothing is signed twice', async () => {
    f.sim.faults.set({
      throttling: { count: 3, action: 'Sign' },
      serverError: { count: 2, action: 'Sign', status: 503 },
    });
    const signsBefore = f.sim.succeeded.Sign ?? 0;
    const answers = await incrementMany(f.h, p, 5, 'throttled-');
    const done = await Promise.all(answers.map((a) => settled(f.h, p.headers, a.body.transaction.id, 30_000)));
    for (const tx of done) {
      assert.equal(tx.status, 'succeeded', tx.errorMessage);
      await f.assertSignedBy(tx.transactionHash, p.wallet);
    }
    assert.equal((f.sim.succeeded.Sign ?? 0) - signsBefore, 5, 'one signature each');
    f.sim.faults.clear();
  });
});
