import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Hex } from 'viem';
import { FINAL, incrementMany, settled } from '#api-testing/transactionFlow.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

/** AWS KMS wallets on interval blocks: many transactions through one key, throttling, and a reorg. */
describe('AWS KMS wallets on the chain lab', () => {
  let lab: LabChain;
  let f: KmsPlatform;
  let p: Awaited<ReturnType<KmsPlatform['project']>>;

  before(async () => {
    lab = await startLabChain({ blockTimeSeconds: 0.5, slotsInAnEpoch: 2 });
    f = await startKmsPlatform({ chainUrl: lab.url });
    p = await f.project(['increment']);
  });
  after(async () => {
    await f?.stop();
    await lab?.stop();
  });

  const get = async (id: string) =>
    (await f.h.call('get-transaction', { headers: p.headers, query: { transactionId: id } })).body.transaction;

  it('50 executions through one key, with KMS latency and throttling mid-run: all final on the canonical chain, contiguous nonces', async () => {
    f.sim.faults.set({ latency: { ms: 30, action: 'Sign' } });
    const signsBefore = f.sim.succeeded.Sign ?? 0;
    const first = await incrementMany(f.h, p, 25, 'chain-a-');
    f.sim.faults.set({ throttling: { count: 6, action: 'Sign' } });
    const second = await incrementMany(f.h, p, 25, 'chain-b-');
    const ids = [...first, ...second].map((a) => a.body.transaction.id as string);
    const final = await Promise.all(
      ids.map((id) =>
        // Final and finalized, or ended otherwise (then the status assertion below names the message).
        waitFor(async () => {
          const tx = await get(id);
          const done = tx.status === 'succeeded' ? tx.finalized : FINAL.includes(tx.status);
          return done ? tx : undefined;
        }, 45_000),
      ),
    );
    f.sim.faults.clear();
    const nonces: number[] = [];
    for (const tx of final) {
      assert.equal(tx.status, 'succeeded', tx.errorMessage);
      const receipt = await f.chain.getTransactionReceipt({ hash: tx.transactionHash });
      const block = await f.chain.getBlock({ blockNumber: receipt.blockNumber });
      assert.equal(receipt.blockHash, block.hash, 'on the canonical chain');
      assert.equal(tx.blockNumber, Number(receipt.blockNumber));
      await f.assertSignedBy(tx.transactionHash, p.wallet);
      nonces.push(tx.nonce);
    }
    nonces.sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: 50 }, (_, i) => i),
      'nonces 0 to 49, none skipped',
    );
    assert.equal((f.sim.succeeded.Sign ?? 0) - signsBefore, 50, 'one signature per transaction');
  });

  it('a reorg that drops mined KMS transactions: the same signed bytes broadcast again, final on the new branch', async () => {
    const answers = await incrementMany(f.h, p, 3, 'reorged-');
    const ids = answers.map((a) => a.body.transaction.id as string);
    const mined = await Promise.all(ids.map((id) => settled(f.h, p.headers, id, 30_000)));
    for (const tx of mined) assert.equal(tx.status, 'succeeded', tx.errorMessage);
    const signsBefore = f.sim.succeeded.Sign ?? 0;
    await lab.pauseMining();
    const head = await lab.head();
    const lowest = Math.min(...mined.map((t) => t.blockNumber));
    const result = await lab.reorg(Number(head) - lowest + 1, { reinclude: 'none' });
    assert.ok(mined.every((t) => result.dropped.includes(t.transactionHash as Hex)));
    await waitFor(async () => ((await get(ids[0] as string)).status === 'broadcasted' ? true : undefined), 15_000);
    await lab.resumeMining();
    for (const id of ids) {
      const final = await waitFor(async () => {
        const tx = await get(id);
        return tx.status === 'succeeded' && tx.finalized ? tx : undefined;
      }, 30_000);
      const before = mined.find((t) => t.id === id);
      assert.equal(final.transactionHash, before?.transactionHash, 'the very same transaction');
      assert.equal(final.nonce, before?.nonce);
      const receipt = await f.chain.getTransactionReceipt({ hash: final.transactionHash });
      const block = await f.chain.getBlock({ blockNumber: receipt.blockNumber });
      assert.equal(receipt.blockHash, block.hash);
      await f.assertSignedBy(final.transactionHash, p.wallet);
    }
    assert.equal(f.sim.succeeded.Sign ?? 0, signsBefore, 'nothing signed again');
  });
});
