import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Hex, keccak256 } from 'viem';
import type { JsonRpcAnswer } from '../jsonRpc.ts';
import { type LabChain, startLabChain } from './chain.ts';
import { devAccount, signTransfer } from './devAccounts.ts';
import { type ProviderProxy, startProviderProxy } from './providerProxy.ts';

const GWEI = 10n ** 9n;

describe('provider proxy: a geth-like pool in front of eth_sendRawTransaction', () => {
  let chain: LabChain;
  let proxy: ProviderProxy;
  before(async () => {
    chain = await startLabChain({ blockTimeSeconds: 0.5 });
    proxy = await startProviderProxy(chain.url, { txpool: { accountSlots: 3, accountQueue: 2 } });
    // Mining paused: the pool holds what each test sends until it mines.
    await chain.pauseMining();
  });
  after(async () => {
    await proxy?.close();
    await chain?.stop();
  });

  const send = async (raw: Hex): Promise<JsonRpcAnswer> => {
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_sendRawTransaction', params: [raw] }),
    });
    return (await res.json()) as JsonRpcAnswer;
  };
  const accepted = async (raw: Hex) =>
    assert.deepEqual(await send(raw), { jsonrpc: '2.0', id: 7, result: keccak256(raw) });
  const refused = async (raw: Hex, message: string) =>
    assert.deepEqual(await send(raw), { jsonrpc: '2.0', id: 7, error: { code: -32000, message } });
  const transfer = (index: number, nonce: number, maxFeePerGas = 10n * GWEI, maxPriorityFeePerGas = GWEI, value = 1n) =>
    signTransfer(devAccount(index), { nonce, maxFeePerGas, maxPriorityFeePerGas, value });

  it('forwards a proper transaction and answers "already known" for one it holds', async () => {
    const raw = await transfer(1, 0);
    await accepted(raw);
    assert.deepEqual(
      (await chain.pool()).pending[devAccount(1).address]?.map((e) => e.hash),
      [keccak256(raw)],
    );
    await refused(raw, 'already known');
  });

  it('takes a replacement only with both fees raised by 10%', async () => {
    await refused(await transfer(1, 0, 10n * GWEI, GWEI, 2n), 'replacement transaction underpriced'); // same fees
    await refused(await transfer(1, 0, 10_500_000_000n, 1_050_000_000n), 'replacement transaction underpriced'); // +5%
    await refused(await transfer(1, 0, 11n * GWEI, GWEI + 1n), 'replacement transaction underpriced'); // tip +1 wei
    const bumped = await transfer(1, 0, 11n * GWEI, 1_100_000_000n);
    await accepted(bumped);
    assert.deepEqual(
      (await chain.pool()).pending[devAccount(1).address]?.map((e) => e.hash),
      [keccak256(bumped)],
    );
  });

  it('answers "nonce too low" once the nonce is mined', async () => {
    await chain.mineNow();
    await refused(await transfer(1, 0, 50n * GWEI, 5n * GWEI), 'nonce too low: next nonce 1, tx nonce 0');
  });

  it('answers "max fee per gas less than block base fee" against the pending block', async () => {
    await chain.setNextBaseFee(20n * GWEI);
    const account = devAccount(2);
    await refused(
      await transfer(2, 0, 15n * GWEI),
      `max fee per gas less than block base fee: address ${account.address}, maxFeePerGas: 15000000000, baseFee: 20000000000`,
    );
    await chain.mineNow();
    await chain.setNextBaseFee(GWEI);
    await chain.mineNow();
  });

  it('answers "txpool is full" past the per-sender executable and gapped limits', async () => {
    for (const nonce of [0, 1, 2]) await accepted(await transfer(3, nonce));
    await refused(await transfer(3, 3), 'txpool is full');
    for (const nonce of [10, 11]) await accepted(await transfer(3, nonce));
    await refused(await transfer(3, 12), 'txpool is full');
    // A replacement takes no new slot.
    await accepted(await transfer(3, 2, 11n * GWEI, 1_100_000_000n));
    await chain.dropAll();
  });

  it('judges a batch in order, as if each accepted transaction were already pooled', async () => {
    const raws = await Promise.all([0, 1, 2, 3].map((nonce) => transfer(4, nonce)));
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        [...raws, raws[0]].map((raw, i) => ({
          jsonrpc: '2.0',
          id: i,
          method: 'eth_sendRawTransaction',
          params: [raw],
        })),
      ),
    });
    const answers = (await res.json()) as JsonRpcAnswer[];
    assert.deepEqual(
      answers.map((a) => a.result ?? a.error?.message),
      [...raws.slice(0, 3).map((raw) => keccak256(raw)), 'txpool is full', 'already known'],
    );
    assert.deepEqual(
      (await chain.pool()).pending[devAccount(4).address]?.map((e) => e.nonce),
      [0, 1, 2],
    );
  });

  it('counts what it refused, per method and per reason', () => {
    assert.deepEqual(proxy.stats.refusals, {
      alreadyKnown: 2,
      replacementUnderpriced: 3,
      nonceTooLow: 1,
      feeCapTooLow: 1,
      poolFull: 3,
    });
    assert.equal(proxy.stats.refused.eth_sendRawTransaction, 10);
    assert.equal(proxy.stats.served.eth_sendRawTransaction, 11);
  });
});
