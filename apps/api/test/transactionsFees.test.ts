// Fees on a chain whose base fee spikes ×20 while platform transactions wait in the pool: they are re-priced at
// once by the replacement rules (both fee fields up by at least 10%), never above the network's fee cap
// (MAX_FEE_PER_GAS_GWEI_<id>); with the cap below the base fee they wait, say why, and go out when it falls. After
// each, every execution is final on the canonical chain exactly once, under contiguous nonces.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Hex, parseGwei, parseTransaction } from 'viem';
import { assertFinalOnChain } from '#api-testing/canonicalTruth.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, incrementMany } from '#api-testing/transactionFlow.ts';

const BASE_FEE = parseGwei('1');
const COUNT = 12;

interface Row {
  status: string;
  errorMessage: string | null;
  feeBumps: number;
  finalized: boolean;
  raw: Hex | null;
}

describe('a ×20 base-fee spike under waiting transactions', () => {
  let chain: LabChain;
  let counter: Hex;

  before(async () => {
    // Half-second blocks; `finalized` trails the head by 4 blocks.
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 0.5, slotsInAnEpoch: 2 });
    counter = await deployCounter(chain.url);
  });
  after(async () => {
    await chain?.stop();
  });

  /** A platform whose fee cap on 1337 is `capGwei` (default: the network's default cap). */
  async function platform(capGwei?: string) {
    return createHarness({
      rpcUrls: { 1337: chain.url },
      worker: true,
      transactions: {
        resendDroppedAfterMs: 1_000,
        finalityPollMs: 300,
        // Re-pricing after a spike must not wait for the re-send of a transaction without receipt.
        resendAfterMs: 10 * 60_000,
        maxInFlight: { 1337: 1_000 },
        feeCapPollMs: 300,
        ...(capGwei ? { maxFeePerGas: { 1337: parseGwei(capGwei) } } : {}),
      },
    });
  }

  const rows = async (h: Harness, projectId: number) =>
    (
      await h.db.query<Row>(
        `SELECT status, error_message AS "errorMessage", fee_bumps AS "feeBumps",
                finalized_at IS NOT NULL AS finalized, raw_transaction AS raw
           FROM transactions WHERE project_id = $1 ORDER BY nonce NULLS LAST, created_at`,
        [projectId],
      )
    ).rows;

  /** COUNT increments sent and waiting in the pool, then a block whose base fee is 20 times the last one's. */
  async function spikeUnderWaiting(h: Harness, tag: string) {
    // Paused first: an interval block between these two calls would leave the base fee at 7/8 of BASE_FEE.
    await chain.pauseMining();
    await chain.setNextBaseFee(BASE_FEE);
    await chain.mineNow();
    const p = await counterProject(h, counter, ['increment']);
    await incrementMany(h, p, COUNT, tag);
    await waitFor(
      async () =>
        (await chain.pool()).pending[p.wallet]?.length === COUNT &&
        (await rows(h, p.projectId)).every((r) => r.status === 'broadcasted')
          ? true
          : undefined,
      15_000,
      'the transactions in the pool, recorded as sent',
    );
    const { to } = await chain.spikeBaseFee(20);
    assert.ok((await rows(h, p.projectId)).every((r) => (parseTransaction(r.raw as Hex).maxFeePerGas as bigint) < to));
    await chain.mineNow(); // the spike's block: none of ours can pay its base fee
    return { p, spiked: to };
  }

  async function allFinalOnChain(h: Harness, projectId: number, count: number) {
    await assertFinalOnChain(h.db, (m, params) => chain.rpc(m, params), projectId, { contract: counter });
    const now = await rows(h, projectId);
    assert.equal(now.length, count);
    assert.ok(now.every((r) => r.status === 'succeeded'));
  }

  /** The fee caps of the project's transactions' latest versions: the highest signed (a re-price only raises). */
  async function signedFeeCaps(h: Harness, projectId: number) {
    const { rows: versions } = await h.db.query<{ maxFee: string }>(
      'SELECT gas_price::text AS "maxFee" FROM transactions WHERE project_id = $1 AND gas_price IS NOT NULL',
      [projectId],
    );
    return versions.map((v) => BigInt(v.maxFee));
  }

  it('without the cap binding: re-priced at once to twice the new base fee, and mined', async () => {
    const h = await platform();
    try {
      const { p, spiked } = await spikeUnderWaiting(h, 'free');
      await chain.resumeMining();
      // Well within the 10 minutes after which a transaction without receipt is re-sent anyway.
      await waitFor(
        async () => ((await rows(h, p.projectId)).every((r) => r.status === 'succeeded') ? true : undefined),
        20_000,
        'every transaction mined after the spike',
      );
      for (const row of await rows(h, p.projectId)) {
        assert.ok(row.feeBumps >= 1, 'replaced on its nonce');
        const fees = parseTransaction(row.raw as Hex);
        assert.ok((fees.maxFeePerGas as bigint) >= spiked, 'its fee cap covers the new base fee');
        assert.ok((fees.maxPriorityFeePerGas as bigint) >= (parseGwei('1') * 110n) / 100n, 'tip raised by ≥ 10%');
        assert.equal(row.errorMessage, null);
      }
      await allFinalOnChain(h, p.projectId, COUNT);
    } finally {
      await h.close();
    }
  });

  it('with the cap between the base fee and the headroom: re-priced up to the cap, never above, and mined', async () => {
    const h = await platform('30');
    try {
      const { p } = await spikeUnderWaiting(h, 'capped');
      // Re-priced while the spike's base fee holds (mining paused): later empty blocks would lower it under the cap.
      await waitFor(
        async () => ((await rows(h, p.projectId)).every((r) => r.feeBumps >= 1) ? true : undefined),
        15_000,
        'every waiting transaction re-priced',
      );
      await chain.resumeMining();
      await waitFor(
        async () => ((await rows(h, p.projectId)).every((r) => r.status === 'succeeded') ? true : undefined),
        20_000,
        'every transaction mined under the cap',
      );
      // 2 × 20 + 1 gwei would be the headroom: the cap holds it at 30.
      assert.ok((await signedFeeCaps(h, p.projectId)).every((fee) => fee <= parseGwei('30')));
      for (const row of await rows(h, p.projectId)) {
        assert.equal(parseTransaction(row.raw as Hex).maxFeePerGas, parseGwei('30'));
      }
      await allFinalOnChain(h, p.projectId, COUNT);
    } finally {
      await h.close();
    }
  });

  it('with the cap below the base fee: they wait and say why, new ones are held back, and all go once it falls', async () => {
    const h = await platform('10');
    try {
      const { p } = await spikeUnderWaiting(h, 'held');
      // Mining stays paused: the base fee stays at 20 gwei, above the 10 gwei cap.
      const held = await waitFor(
        async () => {
          const now = await rows(h, p.projectId);
          return now.every((r) => r.errorMessage) ? now : undefined;
        },
        15_000,
        'every waiting transaction explains itself',
      );
      for (const row of held) {
        assert.equal(row.status, 'broadcasted');
        assert.equal(
          row.errorMessage,
          'Waiting for the base fee to fall under the fee cap MAX_FEE_PER_GAS_GWEI_1337 = 10 gwei (it was 20 gwei when this transaction was held back)',
        );
        assert.equal(row.feeBumps, 0, 'no version it could not pay was signed');
      }
      // A new execution is not sent at all: a fee under the cap cannot be mined now.
      const [late] = await incrementMany(h, p, 1, 'held-late');
      const lateId = late?.body.transaction.id as string;
      const lateRow = await waitFor(
        async () => {
          const res = await h.call('get-transaction', { headers: p.headers, query: { transactionId: lateId } });
          return res.body.transaction.errorMessage ? res.body.transaction : undefined;
        },
        15_000,
        'the new execution explains itself',
      );
      assert.equal(lateRow.status, 'created');
      assert.match(
        lateRow.errorMessage,
        /^Waiting for the base fee to fall under the fee cap MAX_FEE_PER_GAS_GWEI_1337 = 10 gwei/,
      );
      assert.ok((await signedFeeCaps(h, p.projectId)).every((fee) => fee <= parseGwei('10')));

      // The base fee falls back: everything goes, and the messages are gone.
      await chain.setNextBaseFee(BASE_FEE);
      await chain.resumeMining();
      await allFinalOnChain(h, p.projectId, COUNT + 1);
      assert.ok((await rows(h, p.projectId)).every((r) => r.errorMessage === null));
      assert.ok((await signedFeeCaps(h, p.projectId)).every((fee) => fee <= parseGwei('10')));
    } finally {
      await h.close();
    }
  });
});
