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

  it('cancels a Fireblocks wallet’s transaction not handed over yet, and leaves one Fireblocks holds to Fireblocks', async () => {
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
      const first = await execute('fb-first');
      const sent = await until(fb.h, p.headers, first.body.transaction.id, sentNotMined, 'broadcast');
      const waiting = await execute('fb-waiting', sent.id);
      const cancelled = await fb.h.call('cancel-transaction', {
        headers: p.headers,
        body: { transactionId: waiting.body.transaction.id },
      });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.transaction.status, 'cancelled');
      const held = await fb.h.call('cancel-transaction', { headers: p.headers, body: { transactionId: sent.id } });
      assert.equal(held.status, 422, JSON.stringify(held.body));
      assert.equal(held.body.code, 'CUSTODY_OPERATION_UNSUPPORTED');
      await anvilClient().setAutomine(true);
      await mine();
      assert.equal((await settled(fb.h, p.headers, sent.id, 30_000)).status, 'succeeded');
      assert.equal(fb.custodianTransactionsOf(waiting.body.transaction.id).length, 0, 'never handed to Fireblocks');
      assert.equal(fb.custodianTransactionsOf(sent.id).length, 1);
    } finally {
      await anvilClient().setAutomine(true);
      await fb.stop();
    }
  });
});
