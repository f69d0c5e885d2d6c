import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { createPublicClient, createTestClient, http, type PublicClient } from 'viem';
import { networkFees } from '#api/transactions/fees.ts';

describe('the network’s fees, as the senders and monitors look at them', () => {
  let anvil: AnvilHandle;
  let client: PublicClient;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    client = createPublicClient({ transport: http(anvil.url) }) as PublicClient;
  });
  after(async () => {
    await anvil?.stop();
  });

  it('are one look shared for a second, and a fresh one for a caller that bounds its age (a speed-up)', async () => {
    const lookedAt = Date.now();
    const before = await networkFees(client);
    const test = createTestClient({ mode: 'anvil', transport: http(anvil.url) });
    // A spike: the next block's base fee triples.
    await test.setNextBlockBaseFeePerGas({ baseFeePerGas: before.baseFee * 3n + 1n });
    await test.mine({ blocks: 1 });
    const spike = (await client.getBlock({ blockTag: 'latest' })).baseFeePerGas as bigint;
    assert.ok(spike > before.baseFee * 3n, 'the block took the raised base fee');
    const shared = await networkFees(client);
    // On a machine slow enough to take a second over the spike, the shared look has expired: nothing to hold there.
    if (Date.now() - lookedAt < 900) assert.equal(shared.baseFee, before.baseFee, 'within the second, the shared look');
    const fresh = await networkFees(client, 0);
    assert.equal(fresh.baseFee, spike, 'maxAgeMs 0 reads the latest block');
    assert.equal((await networkFees(client)).baseFee, spike, 'and the fresh look is the one shared from then on');
  });
});
