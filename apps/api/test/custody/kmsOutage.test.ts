import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { incrementMany, settled } from '#api-testing/transactionFlow.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

describe('AWS KMS wallets: KMS unreachable for 30 s mid-run', () => {
  let f: KmsPlatform;
  let p: Awaited<ReturnType<KmsPlatform['project']>>;

  before(async () => {
    f = await startKmsPlatform();
    p = await f.project(['increment']);
  });
  after(async () => {
    await f?.stop();
  });

  it('rows wait and say why; when KMS answers again every one is signed once and succeeds, nonces contiguous', async () => {
    const before = await incrementMany(f.h, p, 3, 'before-outage-');
    for (const a of before) assert.equal((await settled(f.h, p.headers, a.body.transaction.id)).status, 'succeeded');
    f.sim.faults.set({ unreachable: true });
    const during = await incrementMany(f.h, p, 5, 'during-outage-');
    const waiting = await waitFor(async () => {
      const tx = (
        await f.h.call('get-transaction', {
          headers: p.headers,
          query: { transactionId: during[0]?.body.transaction.id },
        })
      ).body.transaction;
      return tx.errorMessage ? tx : undefined;
    }, 20_000);
    assert.match(
      waiting.errorMessage,
      /^AWS KMS could not sign with key arn:aws:kms:[^ ]+: AWS KMS did not answer Sign/,
    );
    assert.ok(['created', 'processing'].includes(waiting.status));
    const signsBefore = f.sim.succeeded.Sign ?? 0;
    await sleep(30_000);
    f.sim.faults.clear();
    const done = await Promise.all(during.map((a) => settled(f.h, p.headers, a.body.transaction.id, 30_000)));
    const nonces: number[] = [];
    for (const tx of done) {
      assert.equal(tx.status, 'succeeded', tx.errorMessage);
      assert.equal(tx.errorMessage, null);
      await f.assertSignedBy(tx.transactionHash, p.wallet);
      nonces.push(tx.nonce);
    }
    assert.deepEqual(
      nonces.sort((a, b) => a - b),
      [3, 4, 5, 6, 7],
    );
    assert.equal((f.sim.succeeded.Sign ?? 0) - signsBefore, 5, 'each signed once');
  });
});
