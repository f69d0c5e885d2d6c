import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { createTestClient, type Hex, http, type PublicClient, parseAbi } from 'viem';
import { transactionCancellations } from '#api/metrics/instruments.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, settled } from '#api-testing/transactionFlow.ts';
import { adminCliBeside } from './helpers/adminCli.ts';

const COUNT = parseAbi(['function count() view returns (uint256)']);

describe('cancel-transaction and deadlines: a transaction taken back before it is mined', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let chain: PublicClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let counter: Hex;
  let p: Awaited<ReturnType<typeof counterProject>>;
  let seq = 0;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    counter = (await deployCounter(anvil.url)) as Hex;
    // From here nothing is mined until the test mines: a sent transaction waits in the pool as long as needed.
    await test().setAutomine(false);
    // No re-send for want of a receipt: only a cancel replaces a transaction here.
    h = await createHarness({
      rpcUrls: { 1337: anvil.url },
      worker: true,
      transactions: { resendAfterMs: 3_600_000, monitorPollMs: 50 },
    });
    chain = readClient(anvil.url);
    receiver = await startReceiver();
    p = await counterProject(h, counter, ['increment']);
    const endpoint = await h.call('create-webhook-endpoint', {
      headers: p.headers,
      body: { url: receiver.url, eventTypes: ['transaction.cancelled', 'transaction.succeeded'] },
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
    await receiver?.close();
  });

  function test() {
    return createTestClient({ mode: 'anvil', transport: http(anvil.url) });
  }
  const mine = () => test().mine({ blocks: 1 });
  const execute = (functionArgs: string[], extra: Record<string, unknown> = {}) =>
    h.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs, idempotencyKey: `cancel-${++seq}`, ...extra },
    });
  const cancel = (transactionId: string) =>
    h.call('cancel-transaction', { headers: p.headers, body: { transactionId } });
  const get = async (transactionId: string) =>
    (await h.call('get-transaction', { headers: p.headers, query: { transactionId } })).body.transaction;
  const until = (transactionId: string, wanted: (t: Record<string, unknown>) => boolean, what: string) =>
    waitFor(
      async () => {
        const t = await get(transactionId);
        return wanted(t) ? t : undefined;
      },
      20_000,
      `transaction ${transactionId}: ${what}`,
    );
  const broadcasted = (id: string) => until(id, (t) => t.status === 'broadcasted', 'broadcast');
  const count = () => chain.readContract({ address: counter, abi: COUNT, functionName: 'count' });
  const counted = async () =>
    Object.fromEntries((await transactionCancellations.get()).values.map((v) => [String(v.labels.outcome), v.value]));
  const pooled = async () => {
    const pool = (await chain.request({ method: 'txpool_content' as never })) as {
      pending: Record<string, Record<string, { hash: string; to: string; value: string; input: string }>>;
    };
    return Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce));
  };
  const eventsOf = (id: string) =>
    receiver.deliveries
      .map((d) => JSON.parse(d.body))
      .filter((e) => e.data?.transaction?.id === id)
      .map((e) => e.type);
  /** Time passes for a transaction: its acceptance and deadline `seconds` earlier. */
  const age = (id: string, seconds: number) =>
    h.db.query(
      `UPDATE transactions SET created_at = created_at - $2 * interval '1 second',
         expires_at = expires_at - $2 * interval '1 second' WHERE id = $1`,
      [id, seconds],
    );

  it('a row not sent yet is cancelled at once, never sent, and the next row takes the nonce it would have had', async () => {
    const first = await execute(['1']);
    const sent = await broadcasted(first.body.transaction.id);
    // Waits for the first to succeed: it stays `created`.
    const waiting = await execute(['2'], { afterTransactionId: sent.id });
    const behind = await execute(['3'], { afterTransactionId: waiting.body.transaction.id });
    const answer = await cancel(waiting.body.transaction.id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.transaction.status, 'cancelled');
    assert.equal(answer.body.transaction.nonce, null);
    assert.equal(answer.body.transaction.errorMessage, 'Cancelled by cancel-transaction');
    // Asking again answers it as it is.
    const again = await cancel(waiting.body.transaction.id);
    assert.equal(again.status, 200);
    assert.equal(again.body.transaction.status, 'cancelled');
    // What waited for it ends, never sent.
    const failed = await until(behind.body.transaction.id, (t) => t.status === 'broadcast-failed', 'failed');
    assert.match(String(failed.errorMessage), new RegExp(`${waiting.body.transaction.id}.*ended cancelled`));
    const next = await execute(['4']);
    const nextSent = await broadcasted(next.body.transaction.id);
    assert.equal(nextSent.nonce, (sent.nonce as number) + 1, 'the nonce was not burnt');
    await mine();
    assert.equal((await settled(h, p.headers, sent.id)).status, 'succeeded');
    assert.equal((await settled(h, p.headers, next.body.transaction.id)).status, 'succeeded');
    assert.equal(await count(), 5n, 'only 1 and 4 were added');
    await receiver.waitFor(() => eventsOf(waiting.body.transaction.id).length === 1, 20_000, 'the event');
    assert.deepEqual(eventsOf(waiting.body.transaction.id), ['transaction.cancelled']);
    const c = await counted();
    assert.deepEqual([c.asked, c.unsent], [1, 1]);
  });

  it('a sent row is replaced at its nonce by a 0-value transfer to the wallet itself, and ends cancelled once that is mined', async () => {
    const before = await count();
    const res = await execute(['10']);
    const sent = await broadcasted(res.body.transaction.id);
    const original = await chain.getTransaction({ hash: sent.transactionHash as Hex });
    const answer = await cancel(sent.id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.transaction.status, 'cancelling');
    const replaced = await until(sent.id, (t) => t.transactionHash !== sent.transactionHash, 'the cancelling transfer');
    assert.equal(replaced.status, 'cancelling');
    const transfer = await chain.getTransaction({ hash: replaced.transactionHash as Hex });
    assert.equal(transfer.nonce, original.nonce);
    assert.equal(transfer.to?.toLowerCase(), p.wallet.toLowerCase(), 'to the wallet itself');
    assert.equal(transfer.value, 0n);
    assert.equal(transfer.input, '0x');
    assert.ok((transfer.maxFeePerGas as bigint) >= ((original.maxFeePerGas as bigint) * 110n) / 100n, 'fee cap +10%');
    assert.ok(
      (transfer.maxPriorityFeePerGas as bigint) >= ((original.maxPriorityFeePerGas as bigint) * 110n) / 100n,
      'tip +10%',
    );
    assert.deepEqual(
      (await pooled()).map((t) => t.hash),
      [replaced.transactionHash],
      'the pool holds the transfer only',
    );
    // A transaction being cancelled is not sped up.
    const speed = await h.call('speed-up-transaction', { headers: p.headers, body: { transactionId: sent.id } });
    assert.equal(speed.status, 409);
    assert.match(speed.body.message, /being cancelled/);
    await mine();
    const done = await until(sent.id, (t) => t.status === 'cancelled', 'cancelled');
    assert.equal(done.transactionHash, replaced.transactionHash);
    assert.equal(done.nonce, sent.nonce);
    assert.equal(done.gasUsed, '21000');
    assert.equal(done.errorMessage, 'Cancelled by cancel-transaction');
    assert.equal(await count(), before, 'the call never ran');
    // Mined: cancelling again answers it as it is; speeding it up, 409.
    assert.equal((await cancel(sent.id)).body.transaction.status, 'cancelled');
    const c = await counted();
    assert.deepEqual([c.sent, c.cancelled], [1, 1]);
  });

  it('a race the original wins ends as the original’s outcome, saying so; a mined row cannot be cancelled', async () => {
    const res = await execute(['100']);
    const sent = await broadcasted(res.body.transaction.id);
    const { rows } = await h.db.query<{ raw: Hex }>('SELECT raw_transaction AS raw FROM transactions WHERE id = $1', [
      sent.id,
    ]);
    const originalRaw = rows[0]?.raw as Hex;
    await cancel(sent.id);
    const replaced = await until(sent.id, (t) => t.transactionHash !== sent.transactionHash, 'the cancelling transfer');
    // Another node had the original: it is the one a block holds.
    await test().dropTransaction({ hash: replaced.transactionHash as Hex });
    await chain.sendRawTransaction({ serializedTransaction: originalRaw });
    await mine();
    const done = await settled(h, p.headers, sent.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.transactionHash, sent.transactionHash);
    assert.match(String(done.errorMessage), /^Not cancelled: it was mined before its cancellation/);
    await receiver.waitFor(() => eventsOf(sent.id).length === 1, 20_000, 'the event');
    assert.deepEqual(eventsOf(sent.id), ['transaction.succeeded']);
    const late = await cancel(sent.id);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'TRANSACTION_ALREADY_MINED');
    assert.equal((await counted()).lost, 1);
  });

  it('a cancel the chain takes back: the replacement reorged out and the original mined instead ends as the original’s outcome', async () => {
    const res = await execute(['1000']);
    const sent = await broadcasted(res.body.transaction.id);
    const { rows } = await h.db.query<{ raw: Hex }>('SELECT raw_transaction AS raw FROM transactions WHERE id = $1', [
      sent.id,
    ]);
    await cancel(sent.id);
    await until(sent.id, (t) => t.transactionHash !== sent.transactionHash, 'the cancelling transfer');
    await mine();
    const cancelled = await until(sent.id, (t) => t.status === 'cancelled', 'cancelled');
    const before = await count();
    // The block that held the transfer is replaced by one that holds the original.
    await chain.request({ method: 'anvil_reorg' as never, params: [1, [[rows[0]?.raw, 0]]] as never });
    const done = await until(sent.id, (t) => t.status === 'succeeded', 'the original’s outcome');
    assert.equal(done.transactionHash, sent.transactionHash);
    assert.notEqual(done.blockNumber, null);
    assert.equal(done.nonce, cancelled.nonce);
    assert.equal(await count(), before + 1000n);
  });

  it('a deadline that passes cancels the row: before it is sent, and after', async () => {
    const bad = await execute(['1'], { timeoutSeconds: 29 });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.body.details.map((d: { field: string }) => d.field),
      ['body.timeoutSeconds'],
    );
    const first = await execute(['5'], { timeoutSeconds: 60 });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const t = first.body.transaction;
    assert.equal(Date.parse(t.expiresAt) - Date.parse(t.createdAt), 60_000, 'expiresAt = createdAt + 60 s');
    const sent = await broadcasted(t.id);
    const waiting = await execute(['6'], { afterTransactionId: sent.id, timeoutSeconds: 30 });
    await age(waiting.body.transaction.id, 31);
    const unsent = await until(waiting.body.transaction.id, (x) => x.status === 'cancelled', 'cancelled unsent');
    assert.equal(unsent.errorMessage, 'Cancelled: not mined within 30 s (timeoutSeconds)');
    await age(sent.id, 61);
    await until(sent.id, (x) => x.status === 'cancelling' && x.transactionHash !== sent.transactionHash, 'replaced');
    await mine();
    const done = await until(sent.id, (x) => x.status === 'cancelled', 'cancelled');
    assert.equal(done.errorMessage, 'Cancelled: not mined within 60 s (timeoutSeconds)');
    assert.equal((await counted()).expired, 2);
  });

  it('refuses an unknown transaction, one ended without being mined, and a body without an id', async () => {
    const unknown = await cancel('00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.status, 404);
    const bad = await h.call('cancel-transaction', { headers: p.headers, body: {} });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.body.details.map((d: { field: string }) => d.field),
      ['body.transactionId'],
    );
    const first = await execute(['7']);
    const sent = await broadcasted(first.body.transaction.id);
    const waiting = await execute(['8'], { afterTransactionId: sent.id });
    await cancel(sent.id);
    await until(sent.id, (x) => x.transactionHash !== sent.transactionHash, 'the cancelling transfer');
    await mine();
    await until(sent.id, (x) => x.status === 'cancelled', 'cancelled');
    const failed = await until(waiting.body.transaction.id, (x) => x.status === 'broadcast-failed', 'failed');
    const ended = await cancel(failed.id as string);
    assert.equal(ended.status, 409);
    assert.equal(ended.body.code, 'TRANSACTION_NOT_PENDING');
  });

  it('an operator cancels from the admin CLI (cancel-transaction --transaction), and is refused a mined one', async () => {
    const admin = adminCliBeside(
      () => h,
      () => anvil.url,
      () => ({}),
    );
    const first = await execute(['20']);
    const sent = await broadcasted(first.body.transaction.id);
    const waiting = await execute(['21'], { afterTransactionId: sent.id });
    const id = waiting.body.transaction.id as string;
    const done = await admin('cancel-transaction', '--transaction', id);
    assert.equal(done.code, 0, done.err);
    assert.equal(done.out.trim(), `transaction ${id} (project ${p.projectId}): cancelled`);
    assert.equal((await get(id)).status, 'cancelled');
    const json = await admin('cancel-transaction', '--transaction', sent.id, '--json');
    assert.equal(json.code, 0, json.err);
    assert.equal(JSON.parse(json.out).transaction.status, 'cancelling');
    await until(sent.id, (t) => t.transactionHash !== sent.transactionHash, 'the cancelling transfer');
    await mine();
    await until(sent.id, (t) => t.status === 'cancelled', 'cancelled');
    const unknown = await admin('cancel-transaction', '--transaction', '00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /no transaction "00000000-0000-4000-8000-000000000000"/);
    const bad = await admin('cancel-transaction', '--transaction', 'abc');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--transaction must be a transaction id/);
    const other = await execute(['22']);
    await broadcasted(other.body.transaction.id);
    await mine();
    await settled(h, p.headers, other.body.transaction.id);
    const mined = await admin('cancel-transaction', '--transaction', other.body.transaction.id);
    assert.equal(mined.code, 2);
    assert.match(mined.err, /is already mined \(succeeded, block \d+\): it can no longer be replaced/);
  });
});
