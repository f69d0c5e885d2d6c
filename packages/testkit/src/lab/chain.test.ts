import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Hex, keccak256 } from 'viem';
import { waitFor } from '../waitFor.ts';
import { type LabChain, startLabChain } from './chain.ts';
import { devAccount, signTransfer } from './devAccounts.ts';

// Fees far above anything the chain reaches here, even after a spike.
const FEES = { maxFeePerGas: 100n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n };

describe('lab chain', () => {
  let chain: LabChain;
  before(async () => {
    chain = await startLabChain({ blockTimeSeconds: 0.5, slotsInAnEpoch: 2 });
    await chain.mineNow(5);
  });
  after(() => chain?.stop());

  const receipt = (hash: Hex) =>
    chain.rpc<{ blockNumber: Hex; blockHash: Hex } | null>('eth_getTransactionReceipt', [hash]);
  const nonceOf = async (index: number) =>
    Number(await chain.rpc<Hex>('eth_getTransactionCount', [devAccount(index).address, 'latest']));
  /** Sends transfers from dev account `index` with these nonces; mining is paused, so they wait in the pool. */
  async function send(index: number, nonces: number[]) {
    const raws: Hex[] = [];
    for (const nonce of nonces) {
      const raw = await signTransfer(devAccount(index), { nonce, ...FEES });
      await chain.rpc('eth_sendRawTransaction', [raw]);
      raws.push(raw);
    }
    return raws;
  }
  /** Runs `fn` with interval mining paused, so that the test decides what each block holds. */
  async function paused<T>(fn: () => Promise<T>): Promise<T> {
    await chain.pauseMining();
    try {
      return await fn();
    } finally {
      await chain.resumeMining();
    }
  }

  it('mines at its interval, with a real block gas limit and safe/finalized tags that follow the head', async () => {
    const start = await chain.head();
    await waitFor(async () => ((await chain.head()) >= start + 2n ? true : undefined), 5_000, 'two interval blocks');
    await paused(async () => {
      const head = await chain.head();
      assert.equal(await chain.safe(), head - 2n, 'safe = head − slotsInAnEpoch');
      assert.equal(await chain.finalized(), head - 4n, 'finalized = head − 2 × slotsInAnEpoch');
      assert.equal((await chain.block('latest'))?.gasLimit, 30_000_000n);
      assert.equal(await chain.rpc('anvil_getAutomine'), false);
      await sleep(700);
      assert.equal(await chain.head(), head, 'no block while paused');
      assert.equal(await chain.mineNow(3), head + 3n);
    });
    const resumed = await chain.head();
    await waitFor(async () => ((await chain.head()) > resumed ? true : undefined), 3_000, 'mining to resume');
  });

  it('reorganises the last blocks: a removed transaction is gone unless the new branch includes it again', async () => {
    await paused(async () => {
      const nonce = await nonceOf(1);
      const [raw] = (await send(1, [nonce])) as [Hex];
      const hash = keccak256(raw);
      await chain.mineNow(3); // the transaction in the first of three blocks
      const head = await chain.head();
      const minedIn = (await receipt(hash))?.blockNumber;
      assert.equal(BigInt(minedIn as Hex), head - 2n);
      const hashes = async () => Promise.all([3n, 2n, 1n, 0n].map((back) => chain.blockHash(head - back)));
      const before = await hashes();

      const dropped = await chain.reorg(3);
      const now = await hashes();
      assert.equal(await chain.head(), head, 'same height');
      assert.equal(now[0], before[0], 'the fork point stays');
      for (const i of [1, 2, 3]) assert.notEqual(now[i], before[i], `block ${head - 3n + BigInt(i)} replaced`);
      assert.deepEqual(dropped.dropped, [hash]);
      assert.equal(await receipt(hash), null, 'no receipt');
      assert.deepEqual(await chain.pool(), { pending: {}, queued: {} }, 'not returned to the pool');
      assert.equal(await nonceOf(1), nonce, 'the nonce is free again');

      const again = await chain.reorg(3, { reinclude: [raw] });
      assert.deepEqual(again.reincluded, [hash]);
      assert.equal((await receipt(hash))?.blockNumber, minedIn, 'included again, in the new branch’s first block');
      const moved = await chain.reorg(3, { reinclude: 'removed' });
      assert.deepEqual([moved.dropped, moved.reincluded], [[], [hash]]);
      const after = await receipt(hash);
      assert.equal(after?.blockNumber, minedIn, 'same offset');
      assert.notEqual(after?.blockHash, again.added[0]?.hash, 'in a new block');
      assert.equal(await nonceOf(1), nonce + 1);
    });
  });

  it('a new branch holding the same transactions is still another branch: every block gets a new hash', async () => {
    // Given the same parent, transactions, timestamps and base fee (at its floor, as on a chain of empty blocks) as
    // the blocks it replaces, anvil builds them again byte for byte: the same hashes, no reorg for anyone watching.
    // Here timestamps and base fee are pinned (base fee 0, one second between blocks), so that case comes every time.
    const pinned = await startLabChain({ blockTimeSeconds: 1, baseFeePerGas: 0n });
    try {
      await pinned.pauseMining();
      await pinned.rpc('anvil_setBlockTimestampInterval', [1]);
      const raw = await signTransfer(devAccount(6), { nonce: 0, ...FEES });
      await pinned.rpc('eth_sendRawTransaction', [raw]);
      await pinned.mineNow(3);
      const result = await pinned.reorg(3, { reinclude: 'removed' });
      assert.deepEqual(result.reincluded, [keccak256(raw)]);
      assert.deepEqual(
        result.added.map((b) => b.timestamp),
        result.removed.map((b) => b.timestamp),
        'same timestamps',
      );
      for (const [i, block] of result.added.entries()) {
        assert.notEqual(block.hash, result.removed[i]?.hash, `block ${block.number} replaced`);
      }
      const moved = await pinned.rpc<{ blockHash: Hex }>('eth_getTransactionReceipt', [keccak256(raw)]);
      assert.equal(moved.blockHash, result.added[0]?.hash, 'its receipt names the new block');
    } finally {
      await pinned.stop();
    }
  });

  it('builds the new branch from raw transactions (same hash) and requests anvil signs (new hash), skipping what does not fit', async () => {
    await paused(async () => {
      const nonce = await nonceOf(2);
      const account = devAccount(2);
      const [first, second, gapped] = (await Promise.all(
        [nonce, nonce + 1, nonce + 5].map((n) => signTransfer(account, { nonce: n, ...FEES })),
      )) as [Hex, Hex, Hex];
      await chain.mineNow(3);
      const result = await chain.reorg(3, {
        replacements: [
          { tx: second, blockOffset: 1 }, // given before its predecessor: the lab puts each sender's in nonce order
          { tx: first, blockOffset: 1 },
          { tx: gapped, blockOffset: 0 },
          { tx: { from: devAccount(3).address, to: account.address, value: 5n }, blockOffset: 2 },
        ],
      });
      const [b0, b1, b2] = result.added;
      assert.deepEqual(b0?.transactions, []);
      assert.deepEqual(b1?.transactions, [keccak256(first), keccak256(second)]);
      assert.equal(b2?.transactions.length, 1);
      const signed = await chain.rpc<{ from: string; value: Hex }>('eth_getTransactionByHash', [b2?.transactions[0]]);
      assert.deepEqual([signed.from, BigInt(signed.value)], [devAccount(3).address.toLowerCase(), 5n]);
      assert.deepEqual(result.skipped, [keccak256(gapped)], 'a nonce gap is left out, silently');
      assert.deepEqual(await chain.pool(), { pending: {}, queued: {} });
      await assert.rejects(chain.reorg(2, { replacements: [{ tx: first, blockOffset: 2 }] }), /outside the new branch/);
    });
  });

  it('rolls back: the head goes back and the removed blocks’ transactions are gone', async () => {
    await paused(async () => {
      const nonce = await nonceOf(4);
      const [raw] = (await send(4, [nonce])) as [Hex];
      await chain.mineNow(2);
      const head = await chain.head();
      const { removed, dropped } = await chain.rollback(2);
      assert.equal(await chain.head(), head - 2n);
      assert.deepEqual(
        removed.map((b) => b.number),
        [head - 1n, head],
      );
      assert.deepEqual(dropped, [keccak256(raw)]);
      assert.equal(await receipt(keccak256(raw)), null);
      assert.equal(await nonceOf(4), nonce);
      assert.deepEqual(await chain.pool(), { pending: {}, queued: {} });
    });
  });

  it('spikes the base fee: the next block’s baseFeePerGas is the latest one’s × 20', async () => {
    await paused(async () => {
      const base = (await chain.block('latest'))?.baseFeePerGas as bigint;
      assert.deepEqual(await chain.spikeBaseFee(20), { from: base, to: base * 20n });
      assert.equal((await chain.block('pending'))?.baseFeePerGas, base * 20n, 'the pending block shows it already');
      await chain.mineNow();
      assert.equal((await chain.block('latest'))?.baseFeePerGas, base * 20n);
      await chain.setNextBaseFee(12_345n);
      await chain.mineNow();
      assert.equal((await chain.block('latest'))?.baseFeePerGas, 12_345n);
      // Below the floor, the floor is what is multiplied.
      assert.deepEqual(await chain.spikeBaseFee(20, { floor: 1_000_000n }), { from: 12_345n, to: 20_000_000n });
      await chain.mineNow();
      assert.equal((await chain.block('latest'))?.baseFeePerGas, 20_000_000n);
    });
  });

  it('shows the pool per sender and drops from it', async () => {
    await paused(async () => {
      const nonce = await nonceOf(5);
      const address = devAccount(5).address;
      const [first, , third] = (await send(5, [nonce, nonce + 1, nonce + 3])) as [Hex, Hex, Hex];
      const pool = await chain.pool();
      assert.deepEqual(
        pool.pending[address]?.map((e) => e.nonce),
        [nonce, nonce + 1],
      );
      assert.deepEqual(
        pool.queued[address]?.map((e) => [e.nonce, e.hash]),
        [[nonce + 3, keccak256(third)]],
      );
      assert.equal(pool.pending[address]?.[0]?.maxFeePerGas, FEES.maxFeePerGas);
      // anvil drops the transactions that depended on the dropped one with it.
      assert.equal(await chain.dropTransaction(keccak256(first)), true);
      const afterDrop = await chain.pool();
      assert.equal(afterDrop.pending[address], undefined);
      assert.deepEqual(
        afterDrop.queued[address]?.map((e) => e.nonce),
        [nonce + 3],
      );
      assert.equal(await chain.dropTransaction(keccak256(first)), false);
      await chain.dropAll();
      assert.deepEqual(await chain.pool(), { pending: {}, queued: {} });
    });
  });

  it('whose anvil dies says so in the next call: how it ended, and what it wrote last', async () => {
    const doomed = await startLabChain({ blockTimeSeconds: 1 });
    try {
      process.kill(doomed.pid, 'SIGKILL');
      await waitFor(
        () =>
          doomed.rpc('eth_blockNumber').then(
            () => undefined,
            (error: Error) => error.message,
          ),
        5_000,
        'a call that fails',
      ).then((message) =>
        assert.match(
          message,
          new RegExp(
            `^eth_blockNumber: anvil on port ${doomed.port} \\(pid ${doomed.pid}\\) exited on its own, killed by SIGKILL, writing nothing to stderr$`,
          ),
        ),
      );
      // Every call the chain makes says so, the pool's read too.
      await assert.rejects(doomed.pool(), /^LabError: txpool_content: anvil on port \d+ \(pid \d+\) exited on its own/);
    } finally {
      await doomed.stop();
    }
  });

  it('restarts without state on the same port: a reset chain', async () => {
    const [raw] = (await send(6, [await nonceOf(6)])) as [Hex];
    await waitFor(() => receipt(keccak256(raw)).then((r) => r ?? undefined), 5_000, 'the transfer');
    const { url, pid } = chain;
    const height = await chain.head();
    await chain.restartWithoutState();
    assert.equal(chain.url, url);
    assert.notEqual(chain.pid, pid);
    assert.ok((await chain.head()) < height);
    assert.equal(await nonceOf(6), 0);
    assert.equal(await receipt(keccak256(raw)), null);
    const start = await chain.head();
    await waitFor(async () => ((await chain.head()) > start ? true : undefined), 3_000, 'interval mining again');
  });
});
