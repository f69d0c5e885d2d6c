import assert from 'node:assert/strict';
import { verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Fireblocks } from '@fireblocks/ts-sdk';
import { type Address, type Hex, parseEther } from 'viem';
import { waitFor } from '../waitFor.ts';
import { startReceiver } from '../webhookReceiver.ts';
import { startFireblocksSimulatorProcess } from './simulatorProcess.ts';
import { type SimulatorFixture, startSimulatorFixture, TEST_ASSET } from './startSimulatorFixture.ts';

describe('Fireblocks simulator through the official SDK', () => {
  let f: SimulatorFixture;
  before(async () => {
    f = await startSimulatorFixture();
  });
  after(() => f?.stop());

  it('creates a vault account and its wallet, finds it by name prefix, and runs a CONTRACT_CALL to COMPLETED', async () => {
    const vault = await f.fundedVault('mountain-system-1');
    const paged = await f.fireblocks.vaults.getPagedVaultAccounts({ namePrefix: 'mountain-system', limit: 10 });
    const listed = paged.data.accounts?.find((a) => a.id === vault.id);
    assert.equal(listed?.name, 'mountain-system-1');
    assert.equal(listed?.assets?.[0]?.id, TEST_ASSET);
    assert.equal(listed?.assets?.[0]?.total, '10');
    const addresses = await f.fireblocks.vaults.getVaultAccountAssetAddressesPaginated({
      vaultAccountId: vault.id,
      assetId: TEST_ASSET,
    });
    assert.deepEqual(
      addresses.data.addresses?.map((a) => a.address),
      [vault.address],
    );

    const before = await f.count();
    const created = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.incrementRequest(vault.id, 5n, {
        externalTxId: 'row-1',
        note: 'increment by 5',
        gasLimit: '100000',
        maxFee: '10',
        priorityFee: '1.5',
      }),
    });
    assert.equal(created.data.status, 'SUBMITTED');
    const txId = created.data.id as string;
    const done = await f.untilStatus(txId, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.subStatus, 'CONFIRMED');
    const byExternalId = (await f.fireblocks.transactions.getTransactionByExternalId({ externalTxId: 'row-1' })).data;
    assert.equal(byExternalId.id, txId);
    assert.equal(byExternalId.txHash, done.txHash);
    assert.equal(byExternalId.sourceAddress, vault.address);
    assert.ok((byExternalId.numOfConfirmations ?? 0) >= 1);
    assert.ok(Number(byExternalId.feeInfo?.networkFee) > 0);

    // The chain holds the call, sent from the vault's address with the requested gas and fees (gwei).
    const hash = done.txHash as Hex;
    const receipt = await f.chain.getTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), vault.address.toLowerCase());
    assert.equal(receipt.to?.toLowerCase(), f.counter.toLowerCase());
    const sent = await f.chain.getTransaction({ hash });
    assert.equal(sent.gas, 100_000n);
    assert.equal(sent.maxFeePerGas, 10_000_000_000n);
    assert.equal(sent.maxPriorityFeePerGas, 1_500_000_000n);
    assert.equal((await f.count()) - before, 5n);
    assert.equal(f.sim.requests['POST /transactions'], 1);

    const listed2 = await f.fireblocks.transactions.getTransactions({ sourceId: vault.id, status: 'COMPLETED' });
    assert.deepEqual(
      listed2.data.map((t) => t.id),
      [txId],
    );
    assert.ok(f.sim.transactions().some((t) => t.externalTxId === 'row-1' && t.status === 'COMPLETED'));
  });

  it('ends a call reverted on chain FAILED / SMART_CONTRACT_EXECUTION_FAILED, with its hash', async () => {
    const vault = await f.fundedVault('mountain-system-revert');
    const created = await f.fireblocks.transactions.createTransaction({
      // Above the Counter's limit of 1000: TooLarge; the gas limit is given, so it is mined and reverts.
      transactionRequest: f.incrementRequest(vault.id, 2000n, { gasLimit: 100000, feeLevel: 'HIGH' }),
    });
    const done = await f.untilStatus(created.data.id as string, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.subStatus, 'SMART_CONTRACT_EXECUTION_FAILED');
    assert.ok(done.errorDescription);
    const receipt = await f.chain.getTransactionReceipt({ hash: done.txHash as Hex });
    assert.equal(receipt.status, 'reverted');
  });

  it('waits in PENDING_AUTHORIZATION until approved, or ends REJECTED', async () => {
    const vault = await f.fundedVault('mountain-system-approval');
    f.sim.faults.set({ approvalRequired: true });
    try {
      const first = await f.fireblocks.transactions.createTransaction({
        transactionRequest: f.incrementRequest(vault.id, 1n),
      });
      const second = await f.fireblocks.transactions.createTransaction({
        transactionRequest: f.incrementRequest(vault.id, 1n),
      });
      const firstId = first.data.id as string;
      const secondId = second.data.id as string;
      await f.untilStatus(firstId, ['PENDING_AUTHORIZATION']);
      await f.untilStatus(secondId, ['PENDING_AUTHORIZATION']);
      f.sim.approve(firstId);
      assert.equal((await f.untilStatus(firstId, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
      f.sim.reject(secondId);
      const rejected = await f.untilStatus(secondId, ['REJECTED']);
      assert.equal(rejected.subStatus, 'REJECTED_BY_USER');
      assert.equal(rejected.txHash, '');
    } finally {
      f.sim.faults.clear();
    }
  });

  it('cancels a transaction before it is broadcast, and refuses to cancel one completed', async () => {
    const vault = await f.fundedVault('mountain-system-cancel');
    f.sim.faults.set({ approvalRequired: true });
    const waiting = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.incrementRequest(vault.id, 1n),
    });
    f.sim.faults.clear();
    const txId = waiting.data.id as string;
    await f.untilStatus(txId, ['PENDING_AUTHORIZATION']);
    assert.deepEqual((await f.fireblocks.transactions.cancelTransaction({ txId })).data, { success: true });
    const cancelled = await f.untilStatus(txId, ['CANCELLED']);
    assert.equal(cancelled.subStatus, 'CANCELLED_BY_USER');

    const other = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.incrementRequest(vault.id, 1n),
    });
    const otherId = other.data.id as string;
    await f.untilStatus(otherId, ['COMPLETED']);
    await assert.rejects(f.fireblocks.transactions.cancelTransaction({ txId: otherId }), (error: unknown) => {
      assert.equal((error as { response?: { statusCode?: number } }).response?.statusCode, 400);
      return true;
    });
  });

  it('replaces the hash of a transaction waiting in the pool: the same nonce, higher fees, the new hash mined', async () => {
    const vault = await f.fundedVault('mountain-system-speedup');
    await f.chain.request({ method: 'evm_setAutomine', params: [false] } as never);
    try {
      const created = await f.fireblocks.transactions.createTransaction({
        transactionRequest: f.incrementRequest(vault.id, 3n, { gasLimit: 100000, maxFee: '5', priorityFee: '1' }),
      });
      const txId = created.data.id as string;
      const confirming = await f.untilStatus(txId, ['CONFIRMING']);
      const firstHash = confirming.txHash as Hex;
      assert.match(firstHash, /^0x[0-9a-f]{64}$/);
      const newHash = (await f.sim.replaceHash(txId)) as Hex;
      assert.notEqual(newHash, firstHash);
      const replaced = (await f.fireblocks.transactions.getTransaction({ txId })).data;
      assert.equal(replaced.txHash, newHash);
      assert.equal(replaced.replacedTxHash, firstHash);
      await f.chain.request({ method: 'evm_mine', params: [] } as never);
      const done = await f.untilStatus(txId, ['COMPLETED', 'FAILED']);
      assert.equal(done.status, 'COMPLETED');
      assert.equal(done.txHash, newHash);
      assert.deepEqual(
        done.networkRecords?.map((r) => [r.txHash, r.isDropped]),
        [
          [firstHash, true],
          [newHash, false],
        ],
      );
      const [first, second] = await Promise.all([
        f.chain.getTransaction({ hash: newHash }),
        f.chain.getTransactionReceipt({ hash: firstHash }).catch(() => undefined),
      ]);
      assert.equal(second, undefined);
      assert.equal(first.maxFeePerGas, 6_250_000_001n);
    } finally {
      await f.chain.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
  });

  it('broadcasts again a sent transaction that the node dropped from its pool, and completes it', async () => {
    const vault = await f.fundedVault('mountain-system-dropped');
    await f.chain.request({ method: 'evm_setAutomine', params: [false] } as never);
    try {
      const created = await f.fireblocks.transactions.createTransaction({
        transactionRequest: f.incrementRequest(vault.id, 4n, { gasLimit: 100000 }),
      });
      const txId = created.data.id as string;
      const hash = (await f.untilStatus(txId, ['CONFIRMING'])).txHash as Hex;
      await f.chain.request({ method: 'anvil_dropTransaction', params: [hash] } as never);
      assert.equal(await f.chain.getTransaction({ hash }).catch(() => undefined), undefined);
      // Back in the pool within the simulator's re-broadcast delay (2 s), the same bytes: the same hash.
      await waitFor(async () => f.chain.getTransaction({ hash }).catch(() => undefined), 10_000);
      await f.chain.request({ method: 'evm_mine', params: [] } as never);
      const done = await f.untilStatus(txId, ['COMPLETED', 'FAILED']);
      assert.equal(done.status, 'COMPLETED');
      assert.equal(done.txHash, hash);
    } finally {
      await f.chain.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
  });
});

describe('Fireblocks simulator: queueing, delays and webhooks', () => {
  let f: SimulatorFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    receiver = await startReceiver();
    f = await startSimulatorFixture({
      webhookUrl: receiver.url,
      webhookRetryDelaysMs: [100, 300],
      delays: { CONFIRMING: 300 },
    });
  });
  after(async () => {
    await f?.stop();
    await receiver?.close();
  });

  it('keeps a second transaction of the same vault and asset QUEUED while the first is in flight', async () => {
    const vault = await f.fundedVault('queue');
    const first = (
      await f.fireblocks.transactions.createTransaction({ transactionRequest: f.incrementRequest(vault.id, 1n) })
    ).data.id as string;
    const second = (
      await f.fireblocks.transactions.createTransaction({ transactionRequest: f.incrementRequest(vault.id, 2n) })
    ).data.id as string;
    await f.untilStatus(first, ['CONFIRMING']);
    assert.equal((await f.fireblocks.transactions.getTransaction({ txId: second })).data.status, 'QUEUED');
    const [a, b] = [await f.untilStatus(first, ['COMPLETED']), await f.untilStatus(second, ['COMPLETED'])];
    assert.equal(Number(b.nonce), Number(a.nonce) + 1);
  });

  it('posts TRANSACTION_CREATED and every status in order, signed with the simulator webhook key', async () => {
    const vault = await f.fundedVault('webhooks');
    const txId = (
      await f.fireblocks.transactions.createTransaction({ transactionRequest: f.incrementRequest(vault.id, 1n) })
    ).data.id as string;
    await f.untilStatus(txId, ['COMPLETED']);
    const mine = () =>
      receiver.deliveries.filter((d) => (JSON.parse(d.body) as { data: { id: string } }).data.id === txId);
    await receiver.waitFor(() => mine().some((d) => d.body.includes('"COMPLETED"')));
    const events = mine().map(
      (d) => JSON.parse(d.body) as { type: string; tenantId: string; data: { status: string } },
    );
    assert.equal(events[0]?.type, 'TRANSACTION_CREATED');
    assert.ok(events.every((e, i) => i === 0 || e.type === 'TRANSACTION_STATUS_UPDATED'));
    const statuses = events.map((e) => e.data.status).filter((s, i, all) => s !== all[i - 1]);
    assert.deepEqual(statuses, ['SUBMITTED', 'QUEUED', 'PENDING_SIGNATURE', 'BROADCASTING', 'CONFIRMING', 'COMPLETED']);
    for (const delivery of mine()) {
      const signature = Buffer.from(delivery.headers['fireblocks-signature'] as string, 'base64');
      assert.ok(verify('RSA-SHA512', Buffer.from(delivery.body), f.sim.webhookPublicKeyPem, signature));
      const changed = delivery.body.replace(txId, 'another-transaction');
      assert.equal(verify('RSA-SHA512', Buffer.from(changed), f.sim.webhookPublicKeyPem, signature), false);
    }
  });

  it('retries a webhook the receiver failed, with the same body and signature', async () => {
    let failures = 0;
    receiver.respondWith((d) =>
      d.body.includes('TRANSACTION_CREATED') && failures++ < 2 ? { status: 503 } : { status: 200 },
    );
    try {
      const vault = await f.fundedVault('webhook-retries');
      const start = receiver.deliveries.length;
      await f.fireblocks.transactions.createTransaction({ transactionRequest: f.incrementRequest(vault.id, 1n) });
      await receiver.waitFor(
        () => receiver.deliveries.slice(start).filter((d) => d.body.includes('TRANSACTION_CREATED')).length >= 3,
      );
      const created = receiver.deliveries.slice(start).filter((d) => d.body.includes('TRANSACTION_CREATED'));
      assert.equal(new Set(created.map((d) => d.body)).size, 1);
      assert.equal(new Set(created.map((d) => d.headers['fireblocks-signature'])).size, 1);
    } finally {
      receiver.respondWith(() => ({ status: 200 }));
    }
  });
});

describe('Fireblocks simulator in a process of its own (benchmarks)', () => {
  let f: SimulatorFixture;
  before(async () => {
    f = await startSimulatorFixture();
  });
  after(() => f?.stop());

  it('answers the official SDK as its registered user, runs a CONTRACT_CALL on the chain, and reports it', async () => {
    const sim = await startFireblocksSimulatorProcess({
      assets: { [TEST_ASSET]: { rpcUrl: f.anvil.url, chainId: 1337 } },
    });
    try {
      const fireblocks = new Fireblocks({
        apiKey: sim.user.apiKey,
        secretKey: sim.user.privateKeyPem,
        basePath: sim.url,
      });
      const vault = (await fireblocks.vaults.createVaultAccount({ createVaultAccountRequest: { name: 'apart' } })).data;
      const wallet = (
        await fireblocks.vaults.createVaultAccountAsset({ vaultAccountId: String(vault.id), assetId: TEST_ASSET })
      ).data;
      const funding = await f.chain.sendTransaction({ to: wallet.address as Address, value: parseEther('1') });
      await f.chain.waitForTransactionReceipt({ hash: funding, pollingInterval: 50 });
      const before = await f.count();
      const created = await fireblocks.transactions.createTransaction({
        transactionRequest: f.incrementRequest(String(vault.id), 2n, { externalTxId: 'apart-1' }),
      });
      await waitFor(
        async () =>
          (await fireblocks.transactions.getTransaction({ txId: String(created.data.id) })).data.status === 'COMPLETED'
            ? true
            : undefined,
        15_000,
        'the transaction to complete',
      );
      assert.equal((await f.count()) - before, 2n);
      const reported = await sim.transactions();
      assert.deepEqual(
        reported.map((t) => [t.externalTxId, t.status]),
        [['apart-1', 'COMPLETED']],
      );
      const stranger = new Fireblocks({
        apiKey: 'not-registered',
        secretKey: sim.user.privateKeyPem,
        basePath: sim.url,
      });
      await assert.rejects(
        stranger.vaults.getPagedVaultAccounts({}),
        (error: { response?: { statusCode?: number } }) => {
          assert.equal(error.response?.statusCode, 401);
          return true;
        },
      );
    } finally {
      await sim.stop();
    }
  });
});
