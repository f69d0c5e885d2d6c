import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { incrementMany, settled } from '#api-testing/transactionFlow.ts';
import { type FireblocksPlatform, startFireblocksPlatform } from './fireblocksFixture.ts';

describe('Fireblocks unreachable for 30 s in the middle of a run', () => {
  let f: FireblocksPlatform;
  before(async () => {
    f = await startFireblocksPlatform();
  });
  after(async () => {
    await f?.stop();
  });

  it('nothing fails for the outage, nothing is sent twice: every row succeeds once Fireblocks is back', async () => {
    const p = await f.project(['increment']);
    const firstHalf = await incrementMany(f.h, p, 5, 'before-');
    f.sim.faults.set({ unreachable: true });
    const during = await incrementMany(f.h, p, 5, 'during-', { spacingMs: 100 });
    const ids = [...firstHalf, ...during].map((a) => a.body.transaction.id as string);
    // The rows that waited say why.
    const waiting = await waitFor(async () => {
      const tx = (await f.h.call('get-transaction', { headers: p.headers, query: { transactionId: ids[9] as string } }))
        .body.transaction;
      return tx.errorMessage?.includes('Fireblocks did not answer') ? tx : undefined;
    }, 20_000);
    // Claimed rows ('processing') and the rows queued behind them ('created') alike.
    assert.ok(['created', 'processing'].includes(waiting.status), waiting.status);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    f.sim.faults.clear();
    for (const id of ids) {
      const tx = await settled(f.h, p.headers, id, 60_000);
      assert.equal(tx.status, 'succeeded', tx.errorMessage);
      assert.equal(tx.errorMessage, null);
      assert.equal(f.custodianTransactionsOf(id).length, 1, `one Fireblocks transaction for ${id}`);
    }
  });
});
