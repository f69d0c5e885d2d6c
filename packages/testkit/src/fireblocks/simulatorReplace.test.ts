import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Address, type Hex, parseGwei, toHex } from 'viem';
import { type SimulatorFixture, startSimulatorFixture, TEST_ASSET } from './startSimulatorFixture.ts';

interface SdkFailure {
  response?: { statusCode: number; data: { message?: string; code?: number } };
}

/** The SDK's rejection of `call`, for assertions. */
async function failure(call: Promise<unknown>): Promise<SdkFailure> {
  try {
    await call;
  } catch (error) {
    return error as SdkFailure;
  }
  assert.fail('expected the call to fail');
}

/** The fees every original here is signed with: a replacement must pay at least 10% more of each. */
const ORIGINAL_FEES = { maxFee: '5', priorityFee: '1' };
const BUMPED_MAX_FEE = (parseGwei(ORIGINAL_FEES.maxFee) * 110n) / 100n;
const BUMPED_TIP = (parseGwei(ORIGINAL_FEES.priorityFee) * 110n) / 100n;

/**
 * Replacements of a broadcast, unmined transaction at its nonce (Replace By Fee), through the official SDK against a
 * real anvil: a drop (`POST /transactions/{txId}/drop`: a 0-value transfer to the vault's own address) and a boost
 * (a create with `replaceTxByHash`). Anvil's automine is off while an original waits, so that it stays in the pool
 * until the test mines a block; the chain then decides which of the two completes, and the other ends FAILED.
 */
describe('Fireblocks simulator: dropped and replaced transactions', () => {
  let f: SimulatorFixture;
  before(async () => {
    f = await startSimulatorFixture();
  });
  after(() => f?.stop());

  const rpc = <T>(method: string, params: unknown[] = []) => f.chain.request({ method, params } as never) as Promise<T>;
  const automine = (on: boolean) => rpc('evm_setAutomine', [on]);
  const mine = () => rpc('evm_mine');
  const create = async (vaultId: string, amount: bigint, fields: Record<string, unknown> = {}) =>
    (
      await f.fireblocks.transactions.createTransaction({
        transactionRequest: f.incrementRequest(vaultId, amount, fields),
      })
    ).data.id as string;
  const onChainNonce = (address: Address) => f.chain.getTransactionCount({ address, blockTag: 'latest' });
  /** The hashes of `address`'s transactions in anvil's pool, by nonce. */
  async function pooled(address: Address): Promise<Record<string, Hex>> {
    const content = await rpc<{ pending: Record<string, Record<string, { hash: Hex }>> }>('txpool_content');
    const own = Object.entries(content.pending).find(([a]) => a.toLowerCase() === address.toLowerCase())?.[1] ?? {};
    return Object.fromEntries(Object.entries(own).map(([nonce, tx]) => [nonce, tx.hash]));
  }
  /** An original left waiting in the pool: CONFIRMING, unmined (automine must be off). */
  async function pendingOriginal(vaultId: string, amount: bigint) {
    const txId = await create(vaultId, amount, ORIGINAL_FEES);
    const sent = await f.untilStatus(txId, ['CONFIRMING']);
    return { txId, hash: sent.txHash as Hex, nonce: Number(sent.nonce) };
  }
  /** The vault's next transaction takes the nonce after `nonce`, and is mined: no gap, nothing used twice. */
  async function nextTakes(vault: { id: string; address: Address }, nonce: number) {
    const next = await create(vault.id, 0n);
    const done = await f.untilStatus(next, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
    assert.equal(done.nonce, String(nonce + 1));
    assert.equal(await onChainNonce(vault.address), nonce + 2);
  }

  it('drops a pending CONTRACT_CALL: a 0-value self transfer at its nonce with higher fees is mined instead', async () => {
    const vault = await f.fundedVault('replace-drop');
    const countBefore = await f.count();
    await automine(false);
    let nonce: number;
    try {
      const original = await pendingOriginal(vault.id, 2n);
      nonce = original.nonce;
      const dropped = await f.fireblocks.transactions.dropTransaction({
        txId: original.txId,
        dropTransactionRequest: { feeLevel: 'HIGH' },
      });
      assert.equal(dropped.statusCode, 200);
      assert.equal(dropped.data.replacedTxHash, original.hash);
      const dropId = dropped.data.txId as string;
      assert.ok(dropId && dropId !== original.txId, `a new transaction: ${dropId}`);

      const sent = await f.untilStatus(dropId, ['CONFIRMING']);
      assert.equal(sent.replacedTxHash, original.hash);
      assert.equal(sent.nonce, String(nonce));
      assert.notEqual(sent.txHash, original.hash);
      // The node's pool took it in the original's place.
      assert.deepEqual(await pooled(vault.address), { [nonce]: sent.txHash });
      const tip = BigInt(await rpc<Hex>('eth_maxPriorityFeePerGas'));
      const baseFee = (await f.chain.getBlock()).baseFeePerGas ?? 0n;

      await mine();
      const done = await f.untilStatus(dropId, ['COMPLETED', 'FAILED']);
      assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
      assert.equal(done.operation, 'TRANSFER');
      assert.equal(done.amountInfo?.amount, '0');
      assert.equal(done.txHash, sent.txHash);
      const onChain = await f.chain.getTransaction({ hash: done.txHash as Hex });
      assert.equal(onChain.from.toLowerCase(), vault.address.toLowerCase());
      assert.equal(onChain.to?.toLowerCase(), vault.address.toLowerCase());
      assert.equal(onChain.value, 0n);
      assert.equal(onChain.input, '0x');
      assert.equal(onChain.nonce, nonce);
      assert.ok((onChain.maxFeePerGas ?? 0n) >= BUMPED_MAX_FEE, `max fee ${onChain.maxFeePerGas}`);
      assert.ok((onChain.maxPriorityFeePerGas ?? 0n) >= BUMPED_TIP, `tip ${onChain.maxPriorityFeePerGas}`);
      // At least the network's current fees too.
      assert.ok((onChain.maxPriorityFeePerGas ?? 0n) >= tip);
      assert.ok((onChain.maxFeePerGas ?? 0n) >= baseFee + tip);

      const failed = await f.untilStatus(original.txId, ['FAILED', 'COMPLETED'], 20_000);
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.subStatus, 'DROPPED_BY_BLOCKCHAIN');
      assert.equal(await f.chain.getTransaction({ hash: original.hash }).catch(() => undefined), undefined);
      assert.equal(await f.count(), countBefore, 'the call never ran');
    } finally {
      await automine(true);
    }
    await nextTakes(vault, nonce);
  });

  it('boosts a pending CONTRACT_CALL by replaceTxByHash: the same call at the same nonce with higher fees runs once', async () => {
    const vault = await f.fundedVault('replace-boost');
    const countBefore = await f.count();
    await automine(false);
    let nonce: number;
    try {
      const original = await pendingOriginal(vault.id, 3n);
      nonce = original.nonce;
      const originalCall = await f.chain.getTransaction({ hash: original.hash });
      const boostId = await create(vault.id, 3n, { replaceTxByHash: original.hash });
      const sent = await f.untilStatus(boostId, ['CONFIRMING']);
      assert.equal(sent.replacedTxHash, original.hash);
      assert.equal(sent.nonce, String(nonce));
      assert.deepEqual(await pooled(vault.address), { [nonce]: sent.txHash });

      await mine();
      const done = await f.untilStatus(boostId, ['COMPLETED', 'FAILED']);
      assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
      const onChain = await f.chain.getTransaction({ hash: done.txHash as Hex });
      assert.equal(onChain.nonce, nonce);
      assert.equal(onChain.to?.toLowerCase(), f.counter.toLowerCase());
      assert.equal(onChain.input, originalCall.input);
      assert.ok((onChain.maxFeePerGas ?? 0n) >= BUMPED_MAX_FEE, `max fee ${onChain.maxFeePerGas}`);
      assert.ok((onChain.maxPriorityFeePerGas ?? 0n) >= BUMPED_TIP, `tip ${onChain.maxPriorityFeePerGas}`);

      const failed = await f.untilStatus(original.txId, ['FAILED', 'COMPLETED'], 20_000);
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.subStatus, 'DROPPED_BY_BLOCKCHAIN');
      assert.equal(await f.count(), countBefore + 3n, 'the call ran exactly once');
    } finally {
      await automine(true);
    }
    await nextTakes(vault, nonce);
  });

  it('completes the original when it is mined before its drop is signed; the drop is refused for the nonce', async () => {
    const vault = await f.fundedVault('replace-race-before');
    const countBefore = await f.count();
    await automine(false);
    let nonce: number;
    try {
      const original = await pendingOriginal(vault.id, 4n);
      nonce = original.nonce;
      // The drop waits for the policy's approval while the original is mined.
      f.sim.faults.set({ approvalRequired: true });
      let dropId: string;
      try {
        const dropped = await f.fireblocks.transactions.dropTransaction({ txId: original.txId });
        dropId = dropped.data.txId as string;
        assert.equal(dropped.data.replacedTxHash, original.hash);
      } finally {
        f.sim.faults.clear();
      }
      await f.untilStatus(dropId, ['PENDING_AUTHORIZATION']);
      await mine();
      const done = await f.untilStatus(original.txId, ['COMPLETED', 'FAILED']);
      assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
      assert.equal(done.txHash, original.hash);

      f.sim.approve(dropId);
      const refused = await f.untilStatus(dropId, ['FAILED', 'COMPLETED']);
      assert.equal(refused.status, 'FAILED');
      assert.equal(refused.subStatus, 'REJECTED_BY_BLOCKCHAIN');
      assert.match(refused.errorDescription ?? '', new RegExp(`nonce ${nonce}`));
      assert.equal(refused.txHash, '', 'never taken by the node');
      assert.equal(await f.count(), countBefore + 4n);
    } finally {
      await automine(true);
    }
    await nextTakes(vault, nonce);
  });

  it('completes the original when another pool mines it over its boost; the boost ends FAILED / DROPPED_BY_BLOCKCHAIN', async () => {
    const vault = await f.fundedVault('replace-race-after');
    const countBefore = await f.count();
    await automine(false);
    let nonce: number;
    try {
      const original = await pendingOriginal(vault.id, 5n);
      nonce = original.nonce;
      const raw = await rpc<Hex>('eth_getRawTransactionByHash', [original.hash]);
      const boostId = await create(vault.id, 5n, { replaceTxByHash: original.hash });
      const sent = await f.untilStatus(boostId, ['CONFIRMING']);
      assert.deepEqual(await pooled(vault.address), { [nonce]: sent.txHash });
      // Another node's pool still held the original, and a block took it from there.
      await rpc('anvil_dropTransaction', [sent.txHash]);
      await rpc('eth_sendRawTransaction', [raw]);
      await mine();
      const done = await f.untilStatus(original.txId, ['COMPLETED', 'FAILED']);
      assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
      assert.equal(done.txHash, original.hash);

      const lost = await f.untilStatus(boostId, ['FAILED', 'COMPLETED'], 20_000);
      assert.equal(lost.status, 'FAILED');
      assert.equal(lost.subStatus, 'DROPPED_BY_BLOCKCHAIN');
      assert.equal(await f.chain.getTransaction({ hash: sent.txHash as Hex }).catch(() => undefined), undefined);
      assert.equal(await f.count(), countBefore + 5n, 'the call ran exactly once');
    } finally {
      await automine(true);
    }
    await nextTakes(vault, nonce);
  });

  it('refuses to drop a completed transaction, and a replaceTxByHash that is malformed, unknown or mined', async () => {
    const vault = await f.fundedVault('replace-refusals');
    const completedId = await create(vault.id, 1n);
    const completed = await f.untilStatus(completedId, ['COMPLETED']);
    const created = f.sim.transactions().length;

    const drop = await failure(f.fireblocks.transactions.dropTransaction({ txId: completedId }));
    assert.equal(drop.response?.statusCode, 400);
    assert.equal(drop.response?.data.message, `Transaction ${completedId} cannot be dropped in status COMPLETED`);

    for (const hash of ['0x1234', 'not-a-hash', `${completed.txHash}00`]) {
      const refused = await failure(create(vault.id, 1n, { replaceTxByHash: hash }));
      assert.equal(refused.response?.statusCode, 400, hash);
      assert.equal(refused.response?.data.message, 'replaceTxByHash must be a 0x-prefixed 32-byte transaction hash');
    }
    const unknown = toHex(randomBytes(32));
    const notFound = await failure(create(vault.id, 1n, { replaceTxByHash: unknown }));
    assert.equal(notFound.response?.statusCode, 400);
    assert.equal(
      notFound.response?.data.message,
      `No ${TEST_ASSET} transaction of vault account ${vault.id} has hash ${unknown}`,
    );
    const mined = await failure(create(vault.id, 1n, { replaceTxByHash: completed.txHash }));
    assert.equal(mined.response?.statusCode, 400);
    assert.equal(
      mined.response?.data.message,
      `Transaction ${completedId} with hash ${completed.txHash} cannot be replaced in status COMPLETED`,
    );
    // Another vault's transaction is not this vault's to replace.
    const other = await f.fundedVault('replace-refusals-other');
    const foreign = await failure(create(other.id, 1n, { replaceTxByHash: completed.txHash }));
    assert.equal(foreign.response?.statusCode, 400);
    assert.equal(
      foreign.response?.data.message,
      `No ${TEST_ASSET} transaction of vault account ${other.id} has hash ${completed.txHash}`,
    );
    assert.equal(f.sim.transactions().length, created, 'nothing was created');
  });
});
