import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Address, Hex } from 'viem';
import { type SimulatorFixture, startSimulatorFixture } from './startSimulatorFixture.ts';

/**
 * Nonces in a workspace that runs a vault account's transactions in parallel: each signed transaction is held
 * 1.5 s in BROADCASTING, so that several hold nonces while none of them is in the node's pool yet.
 */
describe('Fireblocks simulator: nonces of parallel transactions', () => {
  let f: SimulatorFixture;
  before(async () => {
    f = await startSimulatorFixture({ parallelPerVaultAsset: true, delays: { BROADCASTING: 1_500 } });
  });
  after(() => f?.stop());

  const create = async (vaultId: string, fields: Record<string, unknown> = {}) =>
    (await f.fireblocks.transactions.createTransaction({ transactionRequest: f.incrementRequest(vaultId, 1n, fields) }))
      .data.id as string;
  const nonceOf = async (txId: string) => Number((await f.fireblocks.transactions.getTransaction({ txId })).data.nonce);
  const onChainNonce = (address: Address, blockTag: 'latest' | 'pending' = 'latest') =>
    f.chain.getTransactionCount({ address, blockTag });
  /** A transaction of the vault's address that the simulator did not sign (anvil sends it as that address). */
  async function sendAs(address: Address, nonce: number): Promise<Hex> {
    await f.chain.request({ method: 'anvil_impersonateAccount', params: [address] } as never);
    try {
      return await f.chain.request({
        method: 'eth_sendTransaction',
        params: [{ from: address, to: address, value: '0x0', nonce: `0x${nonce.toString(16)}`, gas: '0x5208' }],
      } as never);
    } finally {
      await f.chain.request({ method: 'anvil_stopImpersonatingAccount', params: [address] } as never);
    }
  }

  it('gives the nonce of a transaction whose broadcast failed to the next one, never to two live ones', async () => {
    const vault = await f.fundedVault('nonces-parallel');
    const first = await onChainNonce(vault.address);
    // Above the block gas limit: signed, then refused by the node when broadcast.
    const refused = await create(vault.id, { gasLimit: '100000000', maxFee: '2', priorityFee: '1' });
    await f.untilStatus(refused, ['BROADCASTING']);
    const waiting = await create(vault.id);
    await f.untilStatus(waiting, ['BROADCASTING']);
    assert.deepEqual([await nonceOf(refused), await nonceOf(waiting)], [first, first + 1]);
    const failed = await f.untilStatus(refused, ['FAILED']);
    assert.ok(failed.errorDescription);
    assert.equal(failed.txHash, '', 'never taken by the node: no hash');
    // Taken while `waiting` may still be signed and unsent: the freed nonce first, then a fresh one.
    const next = await create(vault.id);
    await f.untilStatus(next, ['BROADCASTING', 'CONFIRMING', 'COMPLETED']);
    const after = await create(vault.id);
    const done = [waiting, next, after];
    for (const txId of done) {
      const tx = await f.untilStatus(txId, ['COMPLETED', 'FAILED']);
      assert.equal(tx.status, 'COMPLETED', `${txId}: ${tx.subStatus} ${tx.errorDescription ?? ''}`);
    }
    const nonces = await Promise.all(done.map(nonceOf));
    assert.deepEqual(
      [...nonces].sort((a, b) => a - b),
      [first, first + 1, first + 2],
    );
    assert.equal(await nonceOf(next), first, 'the released nonce is used again');
    assert.equal(await onChainNonce(vault.address), first + 3, 'no gap, no nonce left unmined');
  });

  it('steps the counter back when the transaction that failed held the highest nonce', async () => {
    const vault = await f.fundedVault('nonces-highest');
    const first = await onChainNonce(vault.address);
    const refused = await create(vault.id, { gasLimit: '100000000', maxFee: '2', priorityFee: '1' });
    assert.equal((await f.untilStatus(refused, ['FAILED'])).subStatus, 'REJECTED_BY_BLOCKCHAIN');
    const next = await create(vault.id);
    assert.equal((await f.untilStatus(next, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
    assert.equal(await nonceOf(next), first);
    assert.equal(await onChainNonce(vault.address), first + 1);
  });

  it('ends a transaction whose nonce another took before its broadcast FAILED / REJECTED_BY_BLOCKCHAIN', async () => {
    const vault = await f.fundedVault('nonces-taken-before');
    const txId = await create(vault.id);
    await f.untilStatus(txId, ['BROADCASTING']);
    const nonce = await nonceOf(txId);
    await sendAs(vault.address, nonce);
    assert.equal(await onChainNonce(vault.address), nonce + 1);
    const failed = await f.untilStatus(txId, ['FAILED', 'COMPLETED']);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.subStatus, 'REJECTED_BY_BLOCKCHAIN');
    assert.match(failed.errorDescription ?? '', new RegExp(`nonce ${nonce}`));
    assert.equal(failed.txHash, '');
    // The nonce is the chain's now: the next transaction takes the one after it.
    const next = await create(vault.id);
    assert.equal((await f.untilStatus(next, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
    assert.equal(await nonceOf(next), nonce + 1);
  });

  it('ends a sent transaction whose nonce another took on chain FAILED / DROPPED_BY_BLOCKCHAIN', async () => {
    const vault = await f.fundedVault('nonces-taken-after');
    await f.chain.request({ method: 'evm_setAutomine', params: [false] } as never);
    try {
      const txId = await create(vault.id, { gasLimit: 100000 });
      const sent = await f.untilStatus(txId, ['CONFIRMING']);
      const nonce = Number(sent.nonce);
      await f.chain.request({ method: 'anvil_dropTransaction', params: [sent.txHash] } as never);
      const other = await sendAs(vault.address, nonce);
      await f.chain.request({ method: 'evm_mine', params: [] } as never);
      assert.equal((await f.chain.getTransactionReceipt({ hash: other })).status, 'success');
      const failed = await f.untilStatus(txId, ['FAILED', 'COMPLETED'], 20_000);
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.subStatus, 'DROPPED_BY_BLOCKCHAIN');
      assert.equal(failed.txHash, sent.txHash);
      assert.equal(await f.chain.getTransaction({ hash: sent.txHash as Hex }).catch(() => undefined), undefined);
    } finally {
      await f.chain.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
  });

  it('keeps a transaction priced below the base fee BROADCASTING, as a pool holds it, and sends it when the fee falls', async () => {
    const vault = await f.fundedVault('nonces-base-fee');
    const setBaseFee = async (gwei: bigint) => {
      await f.chain.request({
        method: 'anvil_setNextBlockBaseFeePerGas',
        params: [`0x${(gwei * 10n ** 9n).toString(16)}`],
      } as never);
      await f.chain.request({ method: 'evm_mine', params: [] } as never);
    };
    await setBaseFee(100n);
    try {
      const txId = await create(vault.id, { maxFee: '20', priorityFee: '1' });
      await f.untilStatus(txId, ['BROADCASTING']);
      // Past its 1.5 s hold and at least one more send: anvil refuses it for the base fee each time.
      await new Promise((r) => setTimeout(r, 3_000));
      const held = (await f.fireblocks.transactions.getTransaction({ txId })).data;
      assert.equal(held.status, 'BROADCASTING', `${held.subStatus} ${held.errorDescription ?? ''}`);
      await setBaseFee(1n);
      const done = await f.untilStatus(txId, ['COMPLETED', 'FAILED'], 20_000);
      assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
    } finally {
      await setBaseFee(1n);
    }
  });
});
