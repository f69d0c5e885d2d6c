import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DisableKeyCommand, EnableKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { incrementMany, settled } from '#api-testing/transactionFlow.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

describe('AWS KMS wallets: a key disabled, then enabled again', () => {
  let f: KmsPlatform;
  let p: Awaited<ReturnType<KmsPlatform['project']>>;
  let kms: KMSClient;

  before(async () => {
    f = await startKmsPlatform();
    p = await f.project(['increment']);
    kms = new KMSClient({ region: f.sim.region, endpoint: f.sim.url, credentials: f.user });
  });
  after(async () => {
    kms?.destroy();
    await f?.stop();
  });

  const get = async (id: string) =>
    (await f.h.call('get-transaction', { headers: p.headers, query: { transactionId: id } })).body.transaction;

  it('rows wait with a message naming the key and its state, then go on once it is enabled: no nonce skipped, each signed once', async () => {
    const [first] = await incrementMany(f.h, p, 1, 'before-');
    const done = await settled(f.h, p.headers, first?.body.transaction.id, 20_000);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    const { rows: keys } = await f.h.db.query<{ arn: string }>(
      'SELECT kms_key_arn AS arn FROM system_wallets WHERE address = $1',
      [p.wallet],
    );
    const arn = keys[0]?.arn as string;
    await kms.send(new DisableKeyCommand({ KeyId: arn }));
    const answers = await incrementMany(f.h, p, 4, 'while-disabled-');
    const ids = answers.map((a) => a.body.transaction.id as string);
    for (const id of ids) {
      const waiting = await waitFor(async () => {
        const tx = await get(id);
        return tx.errorMessage ? tx : undefined;
      }, 20_000);
      assert.ok(['created', 'processing'].includes(waiting.status), waiting.status);
      assert.match(
        waiting.errorMessage,
        new RegExp(`AWS KMS key ${arn.replace(/[/.]/g, '\\$&')} is disabled \\(DisabledException\\)`),
      );
      assert.equal(waiting.transactionHash, null);
    }
    const signsWhileDisabled = f.sim.succeeded.Sign ?? 0;
    await kms.send(new EnableKeyCommand({ KeyId: arn }));
    const settledAll = await Promise.all(ids.map((id) => settled(f.h, p.headers, id, 30_000)));
    const nonces = [done.nonce];
    for (const tx of settledAll) {
      assert.equal(tx.status, 'succeeded', tx.errorMessage);
      assert.equal(tx.errorMessage, null, 'the message goes once it is signed');
      await f.assertSignedBy(tx.transactionHash, p.wallet);
      nonces.push(tx.nonce);
    }
    nonces.sort((a, b) => a - b);
    assert.deepEqual(nonces, [0, 1, 2, 3, 4], 'no nonce skipped');
    assert.equal((f.sim.succeeded.Sign ?? 0) - signsWhileDisabled, 4, 'each signed once, after the key came back');
    assert.equal(await f.chain.getTransactionCount({ address: p.wallet }), 5);
  });
});
