import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, settled } from '#api-testing/transactionFlow.ts';

describe('steps that wait for each other: afterTransactionId (interval mining)', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let p: Awaited<ReturnType<typeof counterProject>>;
  let seq = 0;

  before(async () => {
    anvil = await startAnvil({ port: await freePort(), blockTime: 1 });
    h = await createHarness({ rpcUrls: { 1337: anvil.url }, worker: true });
    p = await counterProject(h, await deployCounter(anvil.url));
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  const execute = (name: string, functionArgs: string[], afterTransactionId?: string) =>
    h.call('execute-transaction', {
      headers: p.headers,
      body: {
        contractActivatedFunctionId: p.ids[name],
        functionArgs,
        idempotencyKey: `step-${++seq}`,
        ...(afterTransactionId ? { afterTransactionId } : {}),
      },
    });

  it('runs a chain of three steps one after another: each is sent only once the one before has succeeded', async () => {
    const a = await execute('increment', ['1']);
    const b = await execute('increment', ['2'], a.body.transaction.id);
    const c = await execute('increment', ['3'], b.body.transaction.id);
    for (const res of [a, b, c]) assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(b.body.transaction.afterTransactionId, a.body.transaction.id);
    assert.equal(b.body.transaction.errorMessage, `Waiting for transaction ${a.body.transaction.id} to succeed`);
    assert.equal(a.body.transaction.afterTransactionId, null);
    const [doneA, doneB, doneC] = await Promise.all(
      [a, b, c].map((res) => settled(h, p.headers, res.body.transaction.id, 30_000)),
    );
    for (const done of [doneA, doneB, doneC]) assert.equal(done.status, 'succeeded', done.errorMessage);
    // One block each, in order: a step is estimated only after its predecessor's receipt.
    assert.ok(doneA.blockNumber < doneB.blockNumber, `${doneA.blockNumber} < ${doneB.blockNumber}`);
    assert.ok(doneB.blockNumber < doneC.blockNumber, `${doneB.blockNumber} < ${doneC.blockNumber}`);
    assert.equal(doneB.errorMessage, null);
  });

  it('ends the steps after one that reverts broadcast-failed, never sent, each naming the one it waited for', async () => {
    // The counter is locked first: the step after the lock is not simulated at acceptance (its predecessor is not
    // mined yet), and then reverts at its estimate; the steps after it are never sent.
    const lock = await execute('setLocked', ['true']);
    const second = await execute('increment', ['4'], lock.body.transaction.id);
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const next = await execute('increment', ['5'], second.body.transaction.id);
    const last = await execute('increment', ['6'], next.body.transaction.id);
    const reverted = await settled(h, p.headers, second.body.transaction.id, 30_000);
    assert.equal(reverted.status, 'reverted');
    assert.match(reverted.errorMessage, /counter is locked/);
    const failedNext = await settled(h, p.headers, next.body.transaction.id, 30_000);
    const failedLast = await settled(h, p.headers, last.body.transaction.id, 30_000);
    assert.equal(failedNext.status, 'broadcast-failed');
    assert.equal(
      failedNext.errorMessage,
      `Not sent: transaction ${second.body.transaction.id}, which it waits for (afterTransactionId), ended reverted`,
    );
    assert.equal(failedLast.status, 'broadcast-failed');
    assert.match(
      failedLast.errorMessage,
      new RegExp(`transaction ${next.body.transaction.id}, .* ended broadcast-failed`),
    );
    for (const t of [failedNext, failedLast]) {
      assert.equal(t.transactionHash, null);
      assert.equal(t.nonce, null);
    }
    // No nonce was taken by them: the wallet's next transactions go through.
    await settled(h, p.headers, (await execute('setLocked', ['false'])).body.transaction.id, 30_000);
    const after = await execute('increment', ['7']);
    assert.equal((await settled(h, p.headers, after.body.transaction.id, 30_000)).status, 'succeeded');
  });

  it('is simulated at once when its predecessor has already succeeded, and keeps the predecessor in its idempotency', async () => {
    const done = await settled(h, p.headers, (await execute('increment', ['1'])).body.transaction.id, 30_000);
    // Reverts now (over the Counter's limit): refused at acceptance, since the chain already holds the predecessor.
    const refused = await execute('increment', ['1001'], done.id);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'EXECUTION_REVERTED');
    const body = { contractActivatedFunctionId: p.ids.increment, functionArgs: ['2'], idempotencyKey: 'step-key' };
    const one = await h.call('execute-transaction', {
      headers: p.headers,
      body: { ...body, afterTransactionId: done.id },
    });
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const again = await h.call('execute-transaction', {
      headers: p.headers,
      body: { ...body, afterTransactionId: done.id },
    });
    assert.equal(again.body.transaction.id, one.body.transaction.id);
    const without = await h.call('execute-transaction', { headers: p.headers, body });
    assert.equal(without.status, 409, 'the same key without the predecessor is another request');
  });

  it('refuses a predecessor that is not a transaction of the project, and one that is not a UUID', async () => {
    const other = await counterProject(h, await deployCounter(anvil.url));
    const theirs = await h.call('execute-transaction', {
      headers: other.headers,
      body: { contractActivatedFunctionId: other.ids.increment, functionArgs: ['1'], idempotencyKey: 'theirs' },
    });
    assert.equal(theirs.status, 201, JSON.stringify(theirs.body));
    const foreign = await execute('increment', ['1'], theirs.body.transaction.id);
    assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
    assert.equal(foreign.body.code, 'NOT_FOUND');
    const unknown = await execute('increment', ['1'], '00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.status, 404);
    const bad = await h.call('execute-transaction', {
      headers: other.headers,
      body: {
        contractActivatedFunctionId: other.ids.increment,
        functionArgs: ['1'],
        idempotencyKey: 'x',
        afterTransactionId: 'nope',
      },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.body.details.map((d: { field: string }) => d.field),
      ['body.afterTransactionId'],
    );
  });
});
