// Transactions on other chains than the development one: a mainnet network (its own system wallet, funded by the
// operator), anvil when its automine stalls, and a provider that rate-limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { COUNTER_FORMATTED_ABI, deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { PublicClient } from 'viem';
import { assertFinalOnChain } from '#api-testing/canonicalTruth.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, incrementMany, settled } from '#api-testing/transactionFlow.ts';

describe('transactions on a mainnet network', () => {
  // A second anvil with chain id 1 stands in for Ethereum mainnet: the same code path, the other system wallet.
  let mainnet: AnvilHandle;
  let h: Harness;

  before(async () => {
    mainnet = await startAnvil({ port: await freePort(), chainId: 1 });
    h = await createHarness({ rpcUrls: { 1: mainnet.url }, worker: true });
  });
  after(async () => {
    await h?.close();
    await mainnet?.stop();
  });

  it('sends from the mainnet system wallet once the operator funds it (no development top-up off chain 1337)', async () => {
    const counter = await deployCounter(mainnet.url);
    const { apiKey: key } = await h.project('Mainnet');
    const headers = apiKey(key);
    const contract = await h.call('import-contract', {
      headers,
      body: { networkId: 1, address: counter, formattedAbi: COUNTER_FORMATTED_ABI },
    });
    const activated = await h.call('activate-contract-function', {
      headers,
      body: { contractId: contract.body.contract.id, formattedAbiFunction: 'function increment(uint256 amount)' },
    });
    const detail = (await h.call('get-project-detail', { headers })).body.data;
    const chain = readClient(mainnet.url);
    const execute = (idempotencyKey: string) =>
      h.call('execute-transaction', {
        headers,
        body: {
          contractActivatedFunctionId: activated.body.contractActivatedFunction.id,
          functionArgs: ['2'],
          idempotencyKey,
        },
      });

    // Unfunded: accepted (the simulation needs no balance), then waiting for funds, saying so, never sent.
    const unfunded = await execute('unfunded');
    assert.equal(unfunded.status, 201, JSON.stringify(unfunded.body));
    const waiting = await waitFor(
      async () => {
        const res = await h.call('get-transaction', {
          headers,
          query: { transactionId: unfunded.body.transaction.id },
        });
        return res.body.transaction.errorMessage?.startsWith('Waiting for funds') ? res.body.transaction : undefined;
      },
      20_000,
      'the unfunded transaction to wait for funds',
    );
    assert.equal(waiting.status, 'created');
    assert.match(waiting.errorMessage, new RegExp(`wallet ${detail.mSystemWalletMainnet.address} holds 0 wei`));
    assert.equal(await chain.getBalance({ address: detail.mSystemWalletMainnet.address }), 0n);

    // Funded by its operator: the waiting one goes, then the next, from the mainnet wallet, never the testnet one.
    await chain.request({
      method: 'anvil_setBalance' as never,
      params: [detail.mSystemWalletMainnet.address, '0xde0b6b3a7640000'] as never,
    });
    const first = await settled(h, headers, unfunded.body.transaction.id);
    assert.equal(first.status, 'succeeded', first.errorMessage);
    assert.equal(first.errorMessage, null);
    const done = await settled(h, headers, (await execute('funded')).body.transaction.id);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    const sent = await chain.getTransaction({ hash: done.transactionHash });
    assert.equal(sent.from.toLowerCase(), detail.mSystemWalletMainnet.address.toLowerCase());
    assert.notEqual(sent.from.toLowerCase(), detail.mSystemWalletTestnet.address.toLowerCase());
    assert.equal(sent.chainId, 1);
  });
});

describe('transactions on anvil when its automine stalls', () => {
  // anvil can leave a burst's tail in its pool with automine on and nothing to trigger a block. Presented here by
  // a proxy that reports automine on while anvil's is off: a broadcast transaction then sits in the pool.
  let anvil: AnvilHandle;
  let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
  let h: Harness;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    proxy = await startRpcProxy(anvil.url, await freePort());
    h = await createHarness({ rpcUrls: { 1337: proxy.url }, worker: true });
  });
  after(async () => {
    await h?.close();
    await proxy?.close();
    await anvil?.stop();
  });

  it('the monitor mines a block for a transaction left in the pool, only while automine is reported on', async () => {
    const p = await counterProject(h, await deployCounter(anvil.url), ['increment']);
    const chain = readClient(anvil.url);
    await chain.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    const res = await h.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: 'stalled' },
    });
    const id = res.body.transaction.id as string;
    const status = async () =>
      (await h.call('get-transaction', { headers: p.headers, query: { transactionId: id } })).body.transaction.status;
    await waitFor(async () => ((await status()) === 'broadcasted' ? true : undefined));

    // Automine off (a developer mining by hand): the monitor leaves the pool alone, past its 1 s threshold.
    await new Promise((r) => setTimeout(r, 4_500));
    assert.equal(await status(), 'broadcasted');
    assert.equal(
      Number(((await chain.request({ method: 'txpool_status' as never })) as { pending: string }).pending),
      1,
    );

    // Automine on yet the transaction still in the pool: the stall. Mined by the monitor, not by a fee bump at 60 s.
    proxy.settings.reportAutomine = true;
    const started = Date.now();
    const done = await settled(h, p.headers, id, 15_000);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.nonce, 0);
    assert.ok(Date.now() - started < 10_000, `mined ${Date.now() - started} ms later`);
  });
});

describe('transactions through a provider that rate-limits', () => {
  let chain: LabChain;
  let provider: Awaited<ReturnType<typeof startProviderProxy>>;
  let h: Harness;

  before(async () => {
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: 1 });
    // Far fewer calls a second than the API, the sender and the monitor would make: most of a burst is refused.
    provider = await startProviderProxy(chain.url, {
      port: await freePort(),
      rateLimit: { requestsPerSecond: 15, burst: 15, style: 'infura' },
    });
    h = await createHarness({ rpcUrls: { 1337: provider.url }, worker: true, transactions: { finalityPollMs: 300 } });
  });
  after(async () => {
    await h?.close();
    await provider?.close();
    await chain?.stop();
  });

  it('thirty executions: the provider refuses calls past its rate, yet none fails and all are final', async () => {
    const contract = await deployCounter(chain.url);
    const p = await counterProject(h, contract, ['increment']);
    await incrementMany(h, p, 30, 'limited-');
    await assertFinalOnChain(h.db, (method, params) => chain.rpc(method, params), p.projectId, {
      contract,
      timeoutMs: 90_000,
      onLook: (rows) =>
        assert.ok(
          rows.every((r) => !['broadcast-failed', 'monitor-failed', 'reverted'].includes(r.status)),
          JSON.stringify(rows),
        ),
    });
    assert.ok((provider.stats.refusals.rateLimited ?? 0) > 0, 'the provider refused calls for its rate');
  });
});
