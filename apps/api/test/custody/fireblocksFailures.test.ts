import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Address } from 'viem';
import { settled } from '#api-testing/transactionFlow.ts';
import { type FireblocksPlatform, startFireblocksPlatform } from './fireblocksFixture.ts';

describe('Fireblocks wallets: refusals and failures, each with exactly one Fireblocks transaction per row', () => {
  let f: FireblocksPlatform;
  let p: Awaited<ReturnType<FireblocksPlatform['project']>>;
  let n = 0;

  before(async () => {
    f = await startFireblocksPlatform();
    p = await f.project(['increment']);
  });
  after(async () => {
    await f?.stop();
  });
  beforeEach(() => f.sim.faults.clear());

  async function execute() {
    const res = await f.h.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: `failure-${n++}` },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.transaction.id as string;
  }
  const get = async (id: string) =>
    (await f.h.call('get-transaction', { headers: p.headers, query: { transactionId: id } })).body.transaction;
  const exactlyOne = (id: string) =>
    assert.equal(f.custodianTransactionsOf(id).length, 1, `one Fireblocks transaction for ${id}`);

  it('a policy rejection (BLOCKED_BY_POLICY) ends broadcast-failed with Fireblocks’ status in the message', async () => {
    f.sim.faults.set({ policyBlock: true });
    const id = await execute();
    const tx = await settled(f.h, p.headers, id);
    assert.equal(tx.status, 'broadcast-failed');
    assert.match(tx.errorMessage, /Fireblocks BLOCKED \(BLOCKED_BY_POLICY\)/);
    assert.equal(tx.custody.status, 'BLOCKED');
    assert.equal(tx.custody.subStatus, 'BLOCKED_BY_POLICY');
    assert.equal(tx.transactionHash, null);
    exactlyOne(id);
  });

  it('insufficient funds ends broadcast-failed naming INSUFFICIENT_FUNDS', async () => {
    f.sim.faults.set({ insufficientFunds: true });
    const id = await execute();
    const tx = await settled(f.h, p.headers, id);
    assert.equal(tx.status, 'broadcast-failed');
    assert.match(tx.errorMessage, /Fireblocks FAILED \(INSUFFICIENT_FUNDS\)/);
    exactlyOne(id);
  });

  it('PENDING_AUTHORIZATION shows in custody while it waits; approved, it succeeds; rejected, it fails', async () => {
    f.sim.faults.set({ approvalRequired: true });
    const approved = await execute();
    const rejected = await execute();
    const waiting = await waitFor(async () => {
      const tx = await get(approved);
      return tx.custody?.status === 'PENDING_AUTHORIZATION' ? tx : undefined;
    }, 10_000);
    assert.equal(waiting.status, 'processing');
    await waitFor(
      async () => ((await get(rejected)).custody?.status === 'PENDING_AUTHORIZATION' ? true : undefined),
      10_000,
    );
    f.sim.approve(waiting.custody.id);
    f.sim.reject((await get(rejected)).custody.id);
    const done = await settled(f.h, p.headers, approved);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    const refused = await settled(f.h, p.headers, rejected);
    assert.equal(refused.status, 'broadcast-failed');
    assert.match(refused.errorMessage, /Fireblocks REJECTED/);
    exactlyOne(approved);
    exactlyOne(rejected);
  });

  it('429 and 5xx on the create are retried (a new Idempotency-Key after a 5xx), and the row succeeds once', async () => {
    f.sim.faults.set({ rateLimited: { count: 2, route: 'POST /transactions' } });
    const limited = await execute();
    const done = await settled(f.h, p.headers, limited);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    exactlyOne(limited);
    f.sim.faults.set({ serverError: { count: 2, route: 'POST /transactions' } });
    const failing = await execute();
    const after5xx = await settled(f.h, p.headers, failing);
    assert.equal(after5xx.status, 'succeeded', after5xx.errorMessage);
    exactlyOne(failing);
  });

  it('a sent transaction whose nonce another took on chain: Fireblocks FAILED (DROPPED_BY_BLOCKCHAIN), the row monitor-failed', async () => {
    const rpc = (method: string, params: unknown[] = []) => f.chain.request({ method, params } as never);
    await rpc('evm_setAutomine', [false]);
    try {
      const id = await execute();
      const sent = await waitFor(async () => {
        const tx = await get(id);
        return tx.status === 'broadcasted' ? tx : undefined;
      }, 15_000);
      const custodian = f.custodianTransactionsOf(id)[0];
      assert.equal(custodian?.txHash, sent.transactionHash);
      // The node forgets it, and another transaction of the vault's address takes its nonce in a block.
      const from = custodian?.sourceAddress as Address;
      await rpc('anvil_dropTransaction', [sent.transactionHash]);
      await rpc('anvil_impersonateAccount', [from]);
      await rpc('eth_sendTransaction', [
        { from, to: from, value: '0x0', gas: '0x5208', nonce: `0x${Number(custodian?.nonce).toString(16)}` },
      ]);
      await rpc('anvil_stopImpersonatingAccount', [from]);
      await rpc('evm_mine');
      const tx = await settled(f.h, p.headers, id);
      assert.equal(tx.status, 'monitor-failed');
      assert.match(tx.errorMessage, /Fireblocks FAILED \(DROPPED_BY_BLOCKCHAIN\)/);
      assert.equal(tx.custody.status, 'FAILED');
      assert.equal(tx.custody.subStatus, 'DROPPED_BY_BLOCKCHAIN');
      exactlyOne(id);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });

  it('a response lost after Fireblocks recorded the create: looked up by externalTxId, never sent twice', async () => {
    f.sim.faults.set({ lostResponse: { count: 1, route: 'POST /transactions' } });
    const creates = f.sim.requests['POST /transactions'] ?? 0;
    const lookups = f.sim.requests['GET /transactions/external_tx_id/{externalTxId}'] ?? 0;
    const id = await execute();
    const tx = await settled(f.h, p.headers, id);
    assert.equal(tx.status, 'succeeded', tx.errorMessage);
    exactlyOne(id);
    assert.equal((f.sim.requests['POST /transactions'] ?? 0) - creates, 1, 'no second create');
    assert.ok((f.sim.requests['GET /transactions/external_tx_id/{externalTxId}'] ?? 0) > lookups, 'looked up first');
  });
});
