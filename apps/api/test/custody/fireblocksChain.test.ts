import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Hex } from 'viem';
import { incrementMany, settled } from '#api-testing/transactionFlow.ts';
import { type FireblocksPlatform, startFireblocksPlatform } from './fireblocksFixture.ts';

/** Fireblocks transactions on interval blocks: the chain, not Fireblocks, decides what happened. */
describe('Fireblocks wallets on the chain lab: reorgs and replaced hashes settle on the canonical chain', () => {
  let lab: LabChain;
  let f: FireblocksPlatform;
  let p: Awaited<ReturnType<FireblocksPlatform['project']>>;

  before(async () => {
    lab = await startLabChain({ blockTimeSeconds: 0.5, slotsInAnEpoch: 2 });
    f = await startFireblocksPlatform({ chainUrl: lab.url });
    p = await f.project(['increment']);
  });
  after(async () => {
    await f?.stop();
    await lab?.stop();
  });

  const get = async (id: string) =>
    (await f.h.call('get-transaction', { headers: p.headers, query: { transactionId: id } })).body.transaction;

  it('a reorg that drops mined Fireblocks transactions: taken back, the same bytes broadcast again, final on the new branch', async () => {
    const answers = await incrementMany(f.h, p, 3, 'reorged-');
    const ids = answers.map((a) => a.body.transaction.id as string);
    const mined = await Promise.all(ids.map((id) => settled(f.h, p.headers, id, 30_000)));
    for (const tx of mined) assert.equal(tx.status, 'succeeded', tx.errorMessage);
    // The platform has the signed bytes of each (taken from the node) before the chain takes them away.
    await waitFor(async () => {
      const { rows } = await f.h.db.query(
        'SELECT count(*)::int AS n FROM transactions WHERE id = ANY($1) AND raw_transaction IS NOT NULL',
        [ids],
      );
      return rows[0]?.n === 3 ? true : undefined;
    }, 10_000);
    await lab.pauseMining();
    const head = await lab.head();
    const lowest = Math.min(...mined.map((t) => t.blockNumber));
    const result = await lab.reorg(Number(head) - lowest + 1, { reinclude: 'none' });
    assert.ok(
      mined.every((t) => result.dropped.includes(t.transactionHash as Hex)),
      'the new branch holds none of them',
    );
    await waitFor(async () => ((await get(ids[0] as string)).status === 'broadcasted' ? true : undefined), 15_000);
    await lab.resumeMining();
    for (const id of ids) {
      const final = await waitFor(async () => {
        const tx = await get(id);
        return tx.status === 'succeeded' && tx.finalized ? tx : undefined;
      }, 30_000);
      const receipt = await f.chain.getTransactionReceipt({ hash: final.transactionHash });
      const block = await f.chain.getBlock({ blockNumber: receipt.blockNumber });
      assert.equal(final.blockNumber, Number(receipt.blockNumber));
      assert.equal(receipt.blockHash, block.hash, 'on the canonical chain');
      assert.equal(f.custodianTransactionsOf(id).length, 1, 'still one Fireblocks transaction');
      const before = mined.find((t) => t.id === id);
      assert.equal(final.transactionHash, before?.transactionHash, 'the very same transaction');
      assert.equal(final.nonce, before?.nonce);
    }
  });

  it('a hash Fireblocks replaces (a speed-up) is followed: the replacement’s receipt settles the row', async () => {
    await lab.pauseMining();
    try {
      const [answer] = await incrementMany(f.h, p, 1, 'sped-up-');
      const id = answer?.body.transaction.id as string;
      const first = await waitFor(async () => {
        const tx = await get(id);
        return tx.status === 'broadcasted' ? tx : undefined;
      }, 15_000);
      const replaced = await f.sim.replaceHash(first.custody.id);
      assert.notEqual(replaced, first.transactionHash);
      await waitFor(async () => ((await get(id)).transactionHash === replaced ? true : undefined), 15_000);
      await lab.resumeMining();
      const done = await settled(f.h, p.headers, id, 30_000);
      assert.equal(done.status, 'succeeded', done.errorMessage);
      assert.equal(done.transactionHash, replaced);
      assert.equal(f.custodianTransactionsOf(id).length, 1);
    } finally {
      await lab.resumeMining();
    }
  });
});
