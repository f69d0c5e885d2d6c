// Transactions follow the canonical chain: on a lab chain with interval blocks and moving finality, reorgs that
// remove mined platform transactions (re-included by the new branch, or not), a transaction the pool drops in the
// middle of a run, a chain reset under recorded transactions, and a load-balanced node that lags. After each, every
// accepted execution is final on the canonical chain exactly once, with the canonical receipt's block and gas,
// under contiguous nonces that the wallet's on-chain nonce follows.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { assertFinalOnChain, canonicalViolations } from '#api-testing/canonicalTruth.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, incrementMany } from '#api-testing/transactionFlow.ts';

const SETTINGS = { lagGraceMs: 2_000, resendDroppedAfterMs: 1_000, finalityPollMs: 300 };

describe('transactions on a chain that reorganises', () => {
  // anvil's `finalized` is two epochs behind the head.
  const FINALITY_DEPTH = 16;
  let chain: LabChain;
  let h: Harness;
  let counter: `0x${string}`;

  before(async () => {
    // Blocks every half second; `finalized` trails the head by FINALITY_DEPTH blocks, deeper than any reorg below.
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: FINALITY_DEPTH / 2 });
    counter = await deployCounter(chain.url);
    // anvil's pool has no per-sender limit: runs of fifty wait in it at once.
    h = await createHarness({
      rpcUrls: { 1337: chain.url },
      worker: true,
      transactions: { ...SETTINGS, maxInFlight: { 1337: 1_000 } },
    });
  });
  after(async () => {
    await h?.close();
    await chain?.stop();
  });
  // A test that fails while mining is paused leaves the next one its blocks.
  afterEach(() => chain.resumeMining());

  /** A fresh project (so a fresh wallet) that executes `count` increments; returns their ids. */
  async function execute(count: number, tag: string) {
    const p = await counterProject(h, counter, ['increment']);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: `${tag}-${i}` },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.transaction.id);
    }
    return { ...p, ids };
  }

  const statuses = async (projectId: number) =>
    (
      await h.db.query<{ status: string; finalized: boolean; hash: string; blockHash: string | null }>(
        `SELECT status, finalized_at IS NOT NULL AS finalized, transaction_hash AS hash, block_hash AS "blockHash"
           FROM transactions WHERE project_id = $1 ORDER BY nonce`,
        [projectId],
      )
    ).rows;

  const allMined = (projectId: number, count: number) =>
    waitFor(
      async () => {
        const rows = await statuses(projectId);
        return rows.length === count && rows.every((r) => r.status === 'succeeded') ? rows : undefined;
      },
      30_000,
      'every transaction mined',
    );

  /**
   * Every row of the project mined (again, after a reorg or a reset), then the blocks that bury them mined at once:
   * `finalized` passes them without 8 s of interval blocks. What follows (the platform finding them final, and
   * canonical) is the same either way.
   */
  async function buryMined(projectId: number) {
    const mined = (r: { status: string }) => r.status === 'succeeded' || r.status === 'reverted';
    await waitFor(
      async () => ((await statuses(projectId)).every(mined) ? true : undefined),
      30_000,
      'every transaction mined',
    );
    await chain.mineNow(FINALITY_DEPTH);
  }

  async function allTrue(projectId: number) {
    await buryMined(projectId);
    await waitFor(
      async () => ((await statuses(projectId)).every((r) => r.finalized) ? true : undefined),
      60_000,
      'every transaction final',
    );
    const broken = await canonicalViolations(h.db, (method, params) => chain.rpc(method, params), projectId, {
      contract: counter,
    });
    assert.deepEqual(broken, []);
  }

  for (const depth of [1, 3, 10]) {
    for (const reinclude of [false, true]) {
      it(`a reorg of depth ${depth} that ${reinclude ? 're-includes' : 'drops'} ten mined transactions`, async () => {
        await chain.pauseMining();
        const p = await execute(10, `reorg${depth}${reinclude}`);
        await waitFor(
          async () => ((await chain.pool()).pending[p.wallet]?.length === 10 ? true : undefined),
          15_000,
          'the ten transactions in the pool',
        );
        await chain.mineNow(1);
        if (depth > 1) await chain.mineNow(depth - 1);
        const mined = await allMined(p.projectId, 10);
        const result = await chain.reorg(depth, { reinclude: reinclude ? 'removed' : 'none' });
        const gone = [...result.dropped, ...result.reincluded];
        assert.ok(
          mined.every((r) => gone.includes(r.hash as `0x${string}`)),
          `the reorg removed our ten transactions (${gone.length} removed)`,
        );
        await chain.resumeMining();
        // The platform notices: the rows leave their old block (taken back, or moved to the new one).
        await waitFor(
          async () => {
            const now = await statuses(p.projectId);
            return now.every((r, i) => r.blockHash !== mined[i]?.blockHash) ? true : undefined;
          },
          20_000,
          'every row off its removed block',
        );
        await allTrue(p.projectId);
        const after = await statuses(p.projectId);
        assert.deepEqual(
          after.map((r) => r.hash),
          mined.map((r) => r.hash),
          'the same transactions (same hashes): one row is never two on-chain transactions',
        );
      });
    }
  }

  it('a reorg above more than a thousand mined transactions not final yet takes back the top ones at once', async () => {
    // Mining stays paused while it matters: `finalized` does not move, so the 1,000 below (the in-flight limit
    // here) stay watched.
    await chain.pauseMining();
    const p = await counterProject(h, counter, ['increment']);
    const inPool = (n: number) =>
      waitFor(
        async () => ((await chain.pool()).pending[p.wallet]?.length === n ? true : undefined),
        30_000,
        `${n} transactions in the pool`,
      );
    const ones = async (count: number, tag: string) => {
      const answers = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          h.call('execute-transaction', {
            headers: p.headers,
            body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: `${tag}${i}` },
          }),
        ),
      );
      assert.ok(answers.every((a) => a.status === 201));
    };
    await ones(1_000, 'under-');
    await inPool(1_000);
    await chain.mineNow(2);
    await allMined(p.projectId, 1_000);
    await ones(10, 'top-');
    await inPool(10);
    await chain.mineNow(1);
    const mined = await allMined(p.projectId, 1_010);
    const top = mined.slice(-10);
    const { dropped } = await chain.reorg(1, { reinclude: 'none' });
    assert.deepEqual(new Set(dropped), new Set(top.map((r) => r.hash)));
    await waitFor(
      async () => {
        const now = (await statuses(p.projectId)).slice(-10);
        return now.every((r) => r.status === 'broadcasted' && r.blockHash === null) ? true : undefined;
      },
      5_000,
      'the ten removed ones waiting again, while mining is paused',
    );
    await chain.resumeMining();
    await allTrue(p.projectId);
  });

  it('a transaction dropped from the pool in the middle of a run of fifty is sent again', async () => {
    await chain.pauseMining();
    const p = await execute(50, 'dropped');
    // The node holds a transaction a moment before the platform records it sent (its hash): wait for both.
    await waitFor(
      async () =>
        (await chain.pool()).pending[p.wallet]?.length === 50 &&
        (await statuses(p.projectId)).filter((r) => r.hash !== null).length === 50
          ? true
          : undefined,
      20_000,
      'the fifty transactions in the pool, and recorded sent',
    );
    const { rows } = await h.db.query<{ hash: `0x${string}` }>(
      'SELECT transaction_hash AS hash FROM transactions WHERE project_id = $1 AND nonce = 25',
      [p.projectId],
    );
    assert.equal(await chain.dropTransaction(rows[0]?.hash as `0x${string}`), true);
    await chain.resumeMining();
    await allMined(p.projectId, 50);
    await allTrue(p.projectId);
  });

  it('a chain reset under final transactions: they are sent again under their nonces', async () => {
    const p = await execute(5, 'reset');
    await allMined(p.projectId, 5);
    await buryMined(p.projectId);
    await waitFor(
      async () => ((await statuses(p.projectId)).every((r) => r.finalized) ? true : undefined),
      30_000,
      'final before the reset',
    );
    const before = await statuses(p.projectId);
    await chain.restartWithoutState();
    // The same deployer nonce puts the Counter at the same address on the new chain.
    assert.equal(await deployCounter(chain.url), counter);
    const onNewChain = async () =>
      (await statuses(p.projectId)).every((r, i) => r.blockHash !== null && r.blockHash !== before[i]?.blockHash);
    await waitFor(async () => ((await onNewChain()) ? true : undefined), 60_000, 'mined again, on the new chain');
    await buryMined(p.projectId);
    await waitFor(
      async () => ((await onNewChain()) && (await statuses(p.projectId)).every((r) => r.finalized) ? true : undefined),
      30_000,
      'final again, on the new chain',
    );
    const broken = await canonicalViolations(h.db, (method, params) => chain.rpc(method, params), p.projectId, {
      contract: counter,
    });
    // The earlier tests' wallets are gone with the old chain; only this project is checked.
    assert.deepEqual(broken, []);
  });
});

describe('transactions through a load-balanced node that lags', () => {
  let chain: LabChain;
  let h: Harness;
  let counter: `0x${string}`;
  let provider: Awaited<ReturnType<typeof startProviderProxy>>;

  before(async () => {
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: 2 });
    counter = await deployCounter(chain.url);
    provider = await startProviderProxy(chain.url, { port: await freePort(), lag: { blocks: 3, probability: 0.5 } });
    h = await createHarness({ rpcUrls: { 1337: provider.url }, worker: true, transactions: SETTINGS });
  });
  after(async () => {
    await h?.close();
    await provider?.close();
    await chain?.stop();
  });

  it('a head lower than one answered before never takes a transaction back', async () => {
    const p = await counterProject(h, counter, ['increment']);
    for (let i = 0; i < 10; i++) {
      const res = await h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: `lag-${i}` },
      });
      assert.equal(res.status, 201);
    }
    // Every status the rows pass through, sampled until all are final: none goes back from succeeded.
    const seen = new Map<string, string[]>();
    await waitFor(
      async () => {
        const { rows } = await h.db.query<{ id: string; status: string; finalized: boolean }>(
          'SELECT id, status, finalized_at IS NOT NULL AS finalized FROM transactions WHERE project_id = $1',
          [p.projectId],
        );
        for (const row of rows) {
          const trail = seen.get(row.id) ?? [];
          if (trail.at(-1) !== row.status) trail.push(row.status);
          seen.set(row.id, trail);
        }
        return rows.length === 10 && rows.every((r) => r.finalized) ? true : undefined;
      },
      60_000,
      'every transaction final',
    );
    assert.ok(provider.stats.lagged > 0, 'the node lagged');
    for (const [id, trail] of seen) {
      assert.equal(
        trail.lastIndexOf('broadcasted') < trail.indexOf('succeeded') || !trail.includes('succeeded'),
        true,
        `${id}: ${trail.join(' → ')}`,
      );
    }
    const broken = await canonicalViolations(h.db, (method, params) => chain.rpc(method, params), p.projectId, {
      contract: counter,
    });
    assert.deepEqual(broken, []);
  });
});

describe('transactions through a provider whose pool takes 16 per sender', () => {
  let chain: LabChain;
  let h: Harness;
  let counter: `0x${string}`;
  let provider: Awaited<ReturnType<typeof startProviderProxy>>;

  before(async () => {
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: 1 });
    counter = await deployCounter(chain.url);
    provider = await startProviderProxy(chain.url, { port: await freePort(), txpool: { accountSlots: 16 } });
    // No MAX_IN_FLIGHT_1337: with automine off, the default of 16 applies.
    h = await createHarness({ rpcUrls: { 1337: provider.url }, worker: true, transactions: SETTINGS });
  });
  after(async () => {
    await h?.close();
    await provider?.close();
    await chain?.stop();
  });

  it('fifty executions: never more than 16 in flight, none refused, all final', async () => {
    await chain.pauseMining();
    const p = await counterProject(h, counter, ['increment']);
    for (let i = 0; i < 50; i++) {
      const res = await h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: `slots-${i}` },
      });
      assert.equal(res.status, 201);
    }
    const inFlight = async () =>
      (
        await h.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM transactions WHERE project_id = $1 AND status IN ('processing', 'broadcasted')`,
          [p.projectId],
        )
      ).rows[0]?.n ?? 0;
    // Mining held: the sender stops at the limit.
    await waitFor(async () => ((await inFlight()) === 16 ? true : undefined), 15_000, '16 in flight');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(await inFlight(), 16, 'no more than 16 while none is mined');
    await chain.resumeMining();
    let most = 0;
    await assertFinalOnChain(h.db, (method, params) => chain.rpc(method, params), p.projectId, {
      contract: counter,
      onLook: async () => {
        most = Math.max(most, await inFlight());
      },
    });
    assert.ok(most <= 16, `at most 16 in flight (saw ${most})`);
    assert.deepEqual(provider.stats.refusals, {}, 'the pool refused nothing');
  });

  it("a limit set above the pool's: what the pool refuses as full waits, and is sent as blocks take the first", async () => {
    const above = await createHarness({
      rpcUrls: { 1337: provider.url },
      worker: true,
      transactions: { ...SETTINGS, maxInFlight: { 1337: 40 }, feeCapPollMs: 300 },
    });
    try {
      await chain.pauseMining();
      const p = await counterProject(above, counter, ['increment']);
      await incrementMany(above, p, 40, 'full-');
      await waitFor(
        async () => ((provider.stats.refusals.poolFull ?? 0) > 0 ? true : undefined),
        15_000,
        '"txpool is full" from the provider',
      );
      await chain.resumeMining();
      // None failed for a full pool: all final on chain, nonces contiguous.
      await assertFinalOnChain(above.db, (method, params) => chain.rpc(method, params), p.projectId, {
        contract: counter,
      });
    } finally {
      await above.close();
    }
  });
});
