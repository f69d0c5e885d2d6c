// When a lower head is lag and when it is the chain's: observeChain against a real node and a provider node that
// always answers 3 blocks behind. A lower head becomes the chain's only once lower answers have lasted the grace
// from the first of them, however long nobody asked before it (a busy machine spaces the looks out).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import type { PublicClient } from 'viem';
import { observeChain } from '#api/transactions/canonical.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';

const GRACE_MS = 400;

describe('a lower head: lag, or the chain’s', () => {
  let chain: LabChain;
  let provider: Awaited<ReturnType<typeof startProviderProxy>>;
  let database: TestDatabase;
  let direct: PublicClient;
  let lagging: PublicClient;

  before(async () => {
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 1 });
    await chain.pauseMining();
    await chain.mineNow(10);
    provider = await startProviderProxy(chain.url, { port: await freePort(), lag: { blocks: 3, probability: 1 } });
    database = await createTestDatabase();
    direct = readClient(chain.url);
    lagging = readClient(provider.url);
  });
  after(async () => {
    await database?.drop();
    await provider?.close();
    await chain?.stop();
  });

  const look = (client: PublicClient) =>
    observeChain(database.db, client, 1337, { fallbackDepth: 0, lagGraceMs: GRACE_MS });
  const recorded = async () =>
    Number((await database.db.query<{ head: string }>('SELECT head FROM network_heads')).rows[0]?.head);

  it('is lag at first even when nobody looked for longer than the grace, and the chain’s once lower answers lasted it', async () => {
    const head = await look(direct);
    assert.equal(head.lagging, false);
    await sleep(GRACE_MS * 2); // nobody looks
    const first = await look(lagging);
    assert.equal(first.head, head.head - 3);
    assert.equal(first.lagging, true, 'the first lower answer is lag');
    assert.equal(await recorded(), head.head);
    assert.equal((await look(lagging)).lagging, true, 'still within the grace');
    await sleep(GRACE_MS + 100);
    assert.equal((await look(lagging)).lagging, false, 'lower answers that lasted the grace: a rollback');
    assert.equal(await recorded(), head.head - 3);
  });

  it('an answer of the recorded head or higher starts the count again', async () => {
    await chain.mineNow(5);
    const head = await look(direct);
    assert.equal((await look(lagging)).lagging, true);
    await sleep(GRACE_MS + 100);
    assert.equal((await look(direct)).lagging, false, 'the head again');
    assert.equal((await look(lagging)).lagging, true, 'lag again, counted from now');
    assert.equal(await recorded(), head.head);
  });
});
