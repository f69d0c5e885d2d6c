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

/** Waits until the transaction answers `wanted`, and returns it. */
function until(
  h: Harness,
  headers: Record<string, string>,
  transactionId: string,
  wanted: (t: Record<string, unknown>) => boolean,
  what: string,
) {
  return waitFor(
    async () => {
      const { body } = await h.call('get-transaction', { headers, query: { transactionId } });
      return wanted(body.transaction) ? body.transaction : undefined;
    },
    30_000,
    `transaction ${transactionId}: ${what}`,
  );
}
const sentNotMined = (t: Record<string, unknown>) => t.status === 'broadcasted' && Boolean(t.transactionHash);

describe('cancel through custodians’ wallets, on anvil mining only when told', () => {
  let anvil: AnvilHandle;
  let kms: KmsPlatform;
  const anvilClient = () => createTestClient({ mode: 'anvil', transport: http(anvil.url) });
  const mine = () => anvilClient().mine({ blocks: 1 });

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    kms = await startKmsPlatform({ chainUrl: anvil.url, transactions: { resendAfterMs: 3_600_000 } });
  });
  after(async () => {
    await kms?.stop();
    await anvil?.stop();
  });

  it('cancels an AWS KMS wallet’s sent transaction with a transfer KMS signs, at its nonce', async () => {
    const p = await kms.project(['increment']);
    await anvilClient().setAutomine(false);
    try {
      const res = await kms.h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['3'], idempotencyKey: 'kms-cancel' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const sent = await until(kms.h, p.headers, res.body.transaction.id, sentNotMined, 'broadcast');
      const original = await kms.chain.getTransaction({ hash: sent.transactionHash as Hex });
      const asked = await kms.h.call('cancel-transaction', { headers: p.headers, body: { transactionId: sent.id } });
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      assert.equal(asked.body.transaction.status, 'cancelling');
      const replaced = await until(
        kms.h,
        p.headers,
        sent.id,
        (t) => t.transactionHash !== sent.transactionHash,
        'the cancelling transfer',
      );
      const transfer = await kms.chain.getTransaction({ hash: replaced.transactionHash as Hex });
      assert.equal(transfer.nonce, original.nonce);
      assert.equal(transfer.to?.toLowerCase(), p.wallet.toLowerCase());
      assert.equal(transfer.value, 0n);
      await kms.assertSignedBy(replaced.transactionHash, p.wallet);
      await mine();
      const done = await settled(kms.h, p.headers, sent.id, 30_000);
      assert.equal(done.status, 'cancelled', done.errorMessage);
      assert.equal(done.transactionHash, replaced.transactionHash);
    } finally {
      await anvilClient().setAutomine(true);
    }
  });

  it('cancels a Fireblocks wallet’s transactions: one not handed over, one Fireblocks holds, one it sent (a drop)', async () => {
    const fb = await startFireblocksPlatform({ chainUrl: anvil.url });
    try {
      const p = await fb.project(['increment']);
      await anvilClient().setAutomine(false);
      const execute = (key: string, afterTransactionId?: string) =>
        fb.h.call('execute-transaction', {
          headers: p.headers,
          body: {
            contractActivatedFunctionId: p.ids.increment,
            functionArgs: ['4'],
            idempotencyKey: key,
            ...(afterTransactionId ? { afterTransactionId } : {}),
          },
        });
      const cancel = (transactionId: string) =>
        fb.h.call('cancel-transaction', { headers: p.headers, body: { transactionId } });
      const first = await execute('fb-first');
      const sent = await until(fb.h, p.headers, first.body.transaction.id, sentNotMined, 'broadcast');
      const original = await fb.chain.getTransaction({ hash: sent.transactionHash as Hex });

      // Not handed over yet (it waits for the first): cancelled at once, never sent to Fireblocks.
      const waiting = await execute('fb-waiting', sent.id);
      const unsent = await cancel(waiting.body.transaction.id);
      assert.equal(unsent.status, 200, JSON.stringify(unsent.body));
      assert.equal(unsent.body.transaction.status, 'cancelled');

      // Held by Fireblocks, waiting for an approval: cancelled there, before it is signed.
      fb.sim.faults.set({ approvalRequired: true });
      const held = (await execute('fb-held')).body.transaction.id as string;
      await until(
        fb.h,
        p.headers,
        held,
        (t) => (t.custody as { status?: string })?.status === 'PENDING_AUTHORIZATION',
        'held',
      );
      fb.sim.faults.clear();
      const asked = await cancel(held);
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      const heldDone = await until(fb.h, p.headers, held, (t) => t.status === 'cancelled', 'cancelled at Fireblocks');
      assert.equal(heldDone.errorMessage, 'Cancelled by cancel-transaction (Fireblocks CANCELLED (CANCELLED_BY_USER))');
      assert.equal(heldDone.transactionHash, null);
      assert.deepEqual(
        fb.custodianTransactionsOf(held).map((t) => t.status),
        ['CANCELLED'],
      );

      // Sent, not mined: Fireblocks drops it, a 0-value transfer to the wallet itself at its nonce.
      const dropping = await cancel(sent.id);
      assert.equal(dropping.status, 200, JSON.stringify(dropping.body));
      assert.equal(dropping.body.transaction.status, 'cancelling');
      const replaced = await until(
        fb.h,
        p.headers,
        sent.id,
        (t) => t.transactionHash !== sent.transactionHash,
        'the drop’s hash',
      );
      const transfer = await fb.chain.getTransaction({ hash: replaced.transactionHash as Hex });
      assert.equal(transfer.nonce, original.nonce);
      assert.equal(transfer.to?.toLowerCase(), p.wallet.toLowerCase());
      assert.equal(transfer.value, 0n);
      assert.ok((transfer.maxFeePerGas ?? 0n) > (original.maxFeePerGas ?? 0n), 'the drop outbids the original');
      await mine();
      const done = await settled(fb.h, p.headers, sent.id, 30_000);
      assert.equal(done.status, 'cancelled', done.errorMessage);
      assert.equal(done.transactionHash, replaced.transactionHash);
      assert.equal(done.errorMessage, 'Cancelled by cancel-transaction');

      // The nonce the drop used is not used twice, and none is skipped: the next transaction takes the one after.
      await anvilClient().setAutomine(true);
      const next = await execute('fb-next');
      const nextDone = await settled(fb.h, p.headers, next.body.transaction.id, 30_000);
      assert.equal(nextDone.status, 'succeeded', nextDone.errorMessage);
      assert.equal(nextDone.nonce, original.nonce + 1);
      // Fireblocks ends the dropped original as replaced; the row stays cancelled, as the chain says.
      await waitFor(
        async () => fb.custodianTransactionsOf(sent.id).find((t) => t.status === 'FAILED'),
        10_000,
        'Fireblocks to end the dropped original',
      );
      assert.equal((await settled(fb.h, p.headers, sent.id, 1_000)).status, 'cancelled');
    } finally {
      await anvilClient().setAutomine(true);
      await fb.stop();
    }
  });
});
