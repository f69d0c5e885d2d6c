import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { createTestClient, type Hex, http, type PublicClient } from 'viem';
import { transactionSpeedUps } from '#api/metrics/instruments.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, settled } from '#api-testing/transactionFlow.ts';

describe('speed-up-transaction: a waiting transaction re-signed at its nonce with higher fees', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let chain: PublicClient;
  let p: Awaited<ReturnType<typeof counterProject>>;
  let seq = 0;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    const counter = await deployCounter(anvil.url);
    // From here nothing is mined until the test mines: a sent transaction waits in the pool as long as needed.
    await createTestClient({ mode: 'anvil', transport: http(anvil.url) }).setAutomine(false);
    // No re-send for want of a receipt: only the speed-up replaces a transaction here.
    h = await createHarness({
      rpcUrls: { 1337: anvil.url },
      worker: true,
      transactions: { resendAfterMs: 3_600_000, monitorPollMs: 50 },
    });
    chain = readClient(anvil.url);
    p = await counterProject(h, counter);
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  const mine = () => createTestClient({ mode: 'anvil', transport: http(anvil.url) }).mine({ blocks: 1 });
  const execute = (functionArgs: string[], afterTransactionId?: string) =>
    h.call('execute-transaction', {
      headers: p.headers,
      body: {
        contractActivatedFunctionId: p.ids.increment,
        functionArgs,
        idempotencyKey: `speed-${++seq}`,
        ...(afterTransactionId ? { afterTransactionId } : {}),
      },
    });
  const speedUp = (transactionId: string, feeMultiplier?: number) =>
    h.call('speed-up-transaction', {
      headers: p.headers,
      body: { transactionId, ...(feeMultiplier === undefined ? {} : { feeMultiplier }) },
    });
  const get = async (transactionId: string) =>
    (await h.call('get-transaction', { headers: p.headers, query: { transactionId } })).body.transaction;
  const broadcasted = (transactionId: string) =>
    waitFor(
      async () => {
        const t = await get(transactionId);
        return t.status === 'broadcasted' ? t : undefined;
      },
      20_000,
      `transaction ${transactionId} to be broadcast`,
    );

  it('re-signs it with both fees doubled, keeps one version in the pool, and the chain mines the new one', async () => {
    const res = await execute(['1']);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const sent = await broadcasted(res.body.transaction.id);
    const first = await chain.getTransaction({ hash: sent.transactionHash as Hex });
    const asked = await speedUp(sent.id, 2);
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal(asked.body.transaction.id, sent.id);
    const faster = await waitFor(
      async () => {
        const t = await get(sent.id);
        return t.transactionHash !== sent.transactionHash ? t : undefined;
      },
      20_000,
      'the replacement',
    );
    const second = await chain.getTransaction({ hash: faster.transactionHash as Hex });
    const counted = Object.fromEntries(
      (await transactionSpeedUps.get()).values.map((v) => [String(v.labels.outcome), v.value]),
    );
    assert.deepEqual([counted.asked, counted.sent], [1, 1], 'counted once asked, once sent');
    assert.equal(second.nonce, first.nonce);
    assert.equal(second.input, first.input);
    assert.equal(second.value, first.value);
    assert.ok((second.maxFeePerGas as bigint) >= 2n * (first.maxFeePerGas as bigint), 'the fee cap doubled');
    assert.ok(
      (second.maxPriorityFeePerGas as bigint) >= 2n * (first.maxPriorityFeePerGas as bigint),
      'the tip doubled',
    );
    assert.equal(faster.gasPrice, (second.maxFeePerGas as bigint).toString());
    const pool = (await chain.request({ method: 'txpool_content' as never })) as {
      pending: Record<string, Record<string, { hash: string }>>;
    };
    const pooled = Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce));
    assert.deepEqual(
      pooled.map((t) => t.hash),
      [faster.transactionHash],
      'the pool holds the new version only',
    );
    await mine();
    const done = await settled(h, p.headers, sent.id);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    assert.equal(done.transactionHash, faster.transactionHash);
    // Mined: nothing can take its nonce now.
    const late = await speedUp(sent.id);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'TRANSACTION_ALREADY_MINED');
  });

  it('refuses a transaction that is not sent yet, an unknown one and a multiplier out of range', async () => {
    const first = await execute(['2']);
    const waiting = await execute(['3'], first.body.transaction.id);
    assert.equal((await get(waiting.body.transaction.id)).status, 'created');
    const notSent = await speedUp(waiting.body.transaction.id);
    assert.equal(notSent.status, 409, JSON.stringify(notSent.body));
    assert.equal(notSent.body.code, 'TRANSACTION_NOT_PENDING');
    assert.match(notSent.body.message, /is created: it has not been sent yet/);
    const unknown = await speedUp('00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.status, 404);
    for (const feeMultiplier of [1.05, 10.5]) {
      const bad = await speedUp(first.body.transaction.id, feeMultiplier);
      assert.equal(bad.status, 400, String(feeMultiplier));
      assert.deepEqual(
        bad.body.details.map((d: { field: string }) => d.field),
        ['body.feeMultiplier'],
      );
    }
    await broadcasted(first.body.transaction.id);
    await mine();
    await settled(h, p.headers, first.body.transaction.id);
    await waitFor(async () => ((await get(waiting.body.transaction.id)).status === 'broadcasted' ? true : undefined));
    await mine();
    assert.equal((await settled(h, p.headers, waiting.body.transaction.id)).status, 'succeeded');
  });
});
