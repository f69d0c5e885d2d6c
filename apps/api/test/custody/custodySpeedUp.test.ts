import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { createTestClient, type Hex, http } from 'viem';
import type { Harness } from '#api-testing/harness.ts';
import { settled } from '#api-testing/transactionFlow.ts';
import { startFireblocksPlatform } from './fireblocksFixture.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

/** Waits until the row is `broadcasted` (sent, not mined: the chain mines only when the test does). */
async function broadcasted(h: Harness, headers: Record<string, string>, transactionId: string) {
  return waitFor(
    async () => {
      const { body } = await h.call('get-transaction', { headers, query: { transactionId } });
      return body.transaction.status === 'broadcasted' && body.transaction.transactionHash
        ? body.transaction
        : undefined;
    },
    30_000,
    `transaction ${transactionId} to be broadcast`,
  );
}

describe('speed-up through custodians’ wallets, on anvil mining only when told', () => {
  let anvil: AnvilHandle;
  let kms: KmsPlatform;
  const mine = () => createTestClient({ mode: 'anvil', transport: http(anvil.url) }).mine({ blocks: 1 });
  const stopMining = () => createTestClient({ mode: 'anvil', transport: http(anvil.url) }).setAutomine(false);
  const startMining = () => createTestClient({ mode: 'anvil', transport: http(anvil.url) }).setAutomine(true);

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    kms = await startKmsPlatform({ chainUrl: anvil.url, transactions: { resendAfterMs: 3_600_000 } });
  });
  after(async () => {
    await kms?.stop();
    await anvil?.stop();
  });

  it('re-signs an AWS KMS wallet’s waiting transaction with KMS: higher fees, a valid signature, the new one mined', async () => {
    const p = await kms.project(['increment']);
    await stopMining();
    try {
      const res = await kms.h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['3'], idempotencyKey: 'kms-speed' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const sent = await broadcasted(kms.h, p.headers, res.body.transaction.id);
      // Read now: the pool keeps only the newest version of a nonce.
      const first = await kms.chain.getTransaction({ hash: sent.transactionHash as Hex });
      const asked = await kms.h.call('speed-up-transaction', {
        headers: p.headers,
        body: { transactionId: sent.id, feeMultiplier: 3 },
      });
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      const faster = await waitFor(
        async () => {
          const { body } = await kms.h.call('get-transaction', {
            headers: p.headers,
            query: { transactionId: sent.id },
          });
          return body.transaction.transactionHash !== sent.transactionHash ? body.transaction : undefined;
        },
        30_000,
        'the replacement',
      );
      const second = await kms.chain.getTransaction({ hash: faster.transactionHash as Hex });
      assert.equal(second.nonce, first.nonce);
      assert.ok((second.maxFeePerGas as bigint) >= 3n * (first.maxFeePerGas as bigint));
      await kms.assertSignedBy(faster.transactionHash, p.wallet);
      await mine();
      const done = await settled(kms.h, p.headers, sent.id, 30_000);
      assert.equal(done.status, 'succeeded', done.errorMessage);
      assert.equal(done.transactionHash, faster.transactionHash);
    } finally {
      await startMining();
    }
  });

  it('speeds up a Fireblocks transaction the base fee outgrew, with Fireblocks’ replacement at its nonce (replaceTxByHash)', async () => {
    const fb = await startFireblocksPlatform({ chainUrl: anvil.url });
    try {
      const p = await fb.project(['increment']);
      await stopMining();
      const res = await fb.h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['4'], idempotencyKey: 'fb-speed' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const sent = await broadcasted(fb.h, p.headers, res.body.transaction.id);
      const first = await fb.chain.getTransaction({ hash: sent.transactionHash as Hex });
      // The base fee rises past its fee cap: a block is mined without it, and Fireblocks does not re-price it.
      const test = createTestClient({ mode: 'anvil', transport: http(anvil.url) });
      await test.setNextBlockBaseFeePerGas({ baseFeePerGas: (first.maxFeePerGas as bigint) * 3n });
      await mine();
      const outbid = await fb.chain.getBlock({ blockTag: 'latest' });
      assert.deepEqual(outbid.transactions, [], 'priced under the base fee, it is not mined');
      const asked = await fb.h.call('speed-up-transaction', {
        headers: p.headers,
        body: { transactionId: sent.id, feeMultiplier: 2 },
      });
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      const faster = await waitFor(
        async () => {
          const { body } = await fb.h.call('get-transaction', {
            headers: p.headers,
            query: { transactionId: sent.id },
          });
          return body.transaction.transactionHash !== sent.transactionHash ? body.transaction : undefined;
        },
        30_000,
        'the replacement’s hash',
      ).catch(async (error) => {
        // What the row and the custodian hold when the replacement does not come: the row's message says why.
        const { body } = await fb.h.call('get-transaction', { headers: p.headers, query: { transactionId: sent.id } });
        const held = fb.sim.transactions().map((t) => ({ externalTxId: t.externalTxId, status: t.status }));
        throw new Error(`${(error as Error).message}: ${JSON.stringify({ row: body.transaction, held })}`);
      });
      const second = await fb.chain.getTransaction({ hash: faster.transactionHash as Hex });
      assert.equal(second.nonce, first.nonce);
      assert.equal(second.input, first.input);
      assert.equal(second.to, first.to);
      assert.ok((second.maxFeePerGas ?? 0n) >= (first.maxFeePerGas ?? 0n) * 2n, 'the fee cap doubled');
      assert.ok((second.maxPriorityFeePerGas ?? 0n) >= (first.maxPriorityFeePerGas ?? 0n) * 2n, 'the tip doubled');
      assert.ok((second.maxFeePerGas ?? 0n) > (outbid.baseFeePerGas ?? 0n), 'the fee cap is above the base fee now');
      // Fireblocks' replacement is a transaction of its own, naming the hash it replaces.
      const boost = fb.sim.transactions().find((t) => t.externalTxId === `${sent.id}.1`);
      assert.equal(boost?.replacedTxHash, sent.transactionHash);
      await startMining();
      await mine();
      const done = await settled(fb.h, p.headers, sent.id, 30_000);
      assert.equal(done.status, 'succeeded', done.errorMessage);
      assert.equal(done.transactionHash, faster.transactionHash);
      const again = await fb.h.call('speed-up-transaction', { headers: p.headers, body: { transactionId: sent.id } });
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.code, 'TRANSACTION_ALREADY_MINED');
    } finally {
      await startMining();
      await fb.stop();
    }
  });
});
