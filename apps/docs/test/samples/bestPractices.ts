// Docs sample checks: the transactions best-practices page (approve, then transferFrom chained with
// afterTransactionId; a speed-up; a cancel of a transaction not sent yet and of one waiting in the pool).
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Hash } from 'viem';
import { DOCS_TOKEN_ADDRESS } from '../helpers/docsToken.ts';
import type { Output } from '../helpers/samples.ts';
import { type Context, lines, ok, RECIPIENT, type Step } from './context.ts';

const TRANSFER_FROM = 'function transferFrom(address from, address to, uint256 amount) returns (bool)';

/** anvil mines a block every second while the sample runs, as a real chain takes its time, then at once again. */
const mining = (c: Context, seconds: number) =>
  readClient(c.anvil.url).request({ method: 'evm_setIntervalMining' as never, params: [seconds] as never });

/** anvil mines only when told: a sent transaction waits in the pool, as on a busy chain, until `mineWhen` says. */
const automine = (c: Context, on: boolean) =>
  readClient(c.anvil.url).request({ method: 'evm_setAutomine' as never, params: [on] as never });

/** What the platform keeps of a transaction's versions: every hash it sent, and those of its cancelling transfers. */
interface Versions {
  id: string;
  previous: Hash[];
  cancels: Hash[];
  current: Hash | null;
}

async function versionsOf(c: Context, idempotencyKey: string): Promise<Versions | undefined> {
  const { rows } = await c.h.db.query<Versions>(
    `SELECT id, previous_hashes AS previous, cancel_hashes AS cancels, transaction_hash AS current
       FROM transactions WHERE project_id = $1 AND idempotency_key = $2`,
    [c.projectId, idempotencyKey],
  );
  return rows[0];
}

/**
 * In the background while the sample runs: once the transaction of `idempotencyKey` has the version `ready` waits
 * for (a faster one, a cancelling transfer), and that version waits in anvil's pool in place of the one before, anvil
 * mines a block every second. `stopMining` ends it.
 */
function mineWhen(c: Context, idempotencyKey: string, ready: (v: Versions) => boolean) {
  const watch = { stopped: false };
  const mined = waitFor(
    async () => {
      if (watch.stopped) return null;
      const v = await versionsOf(c, idempotencyKey);
      if (!v?.current || !ready(v)) return undefined;
      const pooled = await readClient(c.anvil.url)
        .getTransaction({ hash: v.current })
        .catch(() => undefined);
      return pooled && pooled.blockNumber === null ? v : undefined;
    },
    60_000,
    `the new version of ${idempotencyKey} in the pool`,
  ).then(async (v) => {
    if (v) await mining(c, 1);
    return v;
  });
  mined.catch(() => {}); // awaited by stopMining; this only keeps an early failure handled
  c.values.mining = { watch, mined };
}

/**
 * Back to mining every transaction at once; the versions `mineWhen` saw. A sample that failed is reported as it
 * failed, not as a block that was never mined.
 */
async function stopMining(c: Context, out: Output): Promise<Versions> {
  const { watch, mined } = c.values.mining as { watch: { stopped: boolean }; mined: Promise<Versions | null> };
  try {
    if (out.code !== 0) watch.stopped = true;
    const versions = await mined;
    ok(out);
    return versions as Versions;
  } finally {
    watch.stopped = true;
    await mining(c, 0);
    await automine(c, true);
  }
}

/** A transaction's receipt, null while none is mined (also for a version the pool dropped for a faster one). */
const receipt = (c: Context, hash: Hash) =>
  readClient(c.anvil.url).request({ method: 'eth_getTransactionReceipt', params: [hash] });

const transaction = async (c: Context, transactionId: string) => {
  const res = await c.h.call('get-transaction', { headers: apiKey(c.key), query: { transactionId } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.transaction;
};

export const bestPracticeSteps: Record<string, Step> = {
  'chained-steps': {
    kind: 'run',
    // The point of the chain: without the approval, the wallet's transferFrom of its own tokens reverts, and
    // execute-transaction refuses it.
    prepare: async (c) => {
      assert.equal(await c.token.allowance(c.wallet, c.wallet), 0n);
      const activated = await c.h.call('activate-contract-function', {
        headers: apiKey(c.key),
        body: { contractId: Number(c.env.MOUNTAIN_CONTRACT_ID), formattedAbiFunction: TRANSFER_FROM },
      });
      assert.equal(activated.status, 201, JSON.stringify(activated.body));
      const alone = await c.h.call('execute-transaction', {
        headers: apiKey(c.key),
        body: {
          contractActivatedFunctionId: activated.body.contractActivatedFunction.id,
          functionArgs: [c.wallet, RECIPIENT, '300'],
          idempotencyKey: 'transfer-from-without-approval',
        },
      });
      assert.equal(alone.status, 422, JSON.stringify(alone.body));
      assert.equal(alone.body.code, 'EXECUTION_REVERTED');
      assert.equal(alone.body.message, 'The call reverts: InsufficientAllowance(0, 300)', 'as the page quotes it');
      c.values.beforeChain = {
        wallet: await c.token.balanceOf(c.wallet),
        recipient: await c.token.balanceOf(RECIPIENT),
      };
      await mining(c, 1);
    },
    check: async (out, c) => {
      await mining(c, 0);
      await readClient(c.anvil.url).request({ method: 'evm_setAutomine' as never, params: [true] as never });
      ok(out);
      const [waiting, approved, moved, ...rest] = lines(out);
      assert.deepEqual(rest, []);
      const [first, second] = await chain(c);
      assert.equal(waiting, `created Waiting for transaction ${first.id} to succeed`);
      assert.equal(approved, `succeeded ${first.blockNumber}`);
      assert.equal(moved, `succeeded ${second.blockNumber}`);
      assert.ok(second.blockNumber > first.blockNumber, 'the transferFrom was sent after the approval was mined');
      assert.equal(second.afterTransactionId, first.id);
      assert.equal(second.errorMessage, null);
      assert.deepEqual(second.functionArgs, [c.wallet, RECIPIENT, '300']);
      const before = c.values.beforeChain as { wallet: bigint; recipient: bigint };
      assert.equal(before.wallet - (await c.token.balanceOf(c.wallet)), 300n);
      assert.equal((await c.token.balanceOf(RECIPIENT)) - before.recipient, 300n);
      assert.equal(await c.token.allowance(c.wallet, c.wallet), 0n, 'the transferFrom spent the whole allowance');
    },
  },
  'speed-up-transaction': {
    kind: 'run',
    // The payout waits in the pool until its faster version has replaced it there.
    prepare: async (c) => {
      await automine(c, false);
      mineWhen(c, 'payout-2025-02-01-user-78', (v) => v.previous.length >= 2);
    },
    check: async (out, c) => {
      const versions = await stopMining(c, out);
      const [waiting, done, ...rest] = lines(out);
      assert.deepEqual(rest, []);
      const [first, faster] = versions.previous;
      assert.equal(versions.previous.length, 2, 'one speed-up, one new version');
      const [status, hash, feeCap] = (waiting as string).split(' ');
      assert.deepEqual([status, hash], ['broadcasted', first]);
      assert.equal(done, `succeeded ${faster}`);
      const t = await transaction(c, versions.id);
      assert.equal(t.transactionHash, faster);
      const fast = await readClient(c.anvil.url).getTransaction({ hash: faster as Hash });
      assert.equal(fast.nonce, t.nonce, 'the same nonce');
      assert.equal(fast.to?.toLowerCase(), DOCS_TOKEN_ADDRESS.toLowerCase(), 'the same call');
      assert.equal(fast.value, 0n);
      assert.ok((fast.maxFeePerGas as bigint) >= 2n * BigInt(feeCap as string), 'the fee cap at least doubled');
      assert.equal(fast.blockNumber, BigInt(t.blockNumber));
      assert.equal(await receipt(c, first as Hash), null, 'the first version was never mined');
    },
  },
  'cancel-transaction': {
    kind: 'run',
    // The payout waits in the pool until its cancelling transfer has replaced it there; the bonus waits for it.
    prepare: async (c) => {
      c.values.beforeCancel = {
        wallet: await c.token.balanceOf(c.wallet),
        recipient: await c.token.balanceOf(RECIPIENT),
      };
      await automine(c, false);
      mineWhen(c, 'payout-2025-02-01-user-79', (v) => v.cancels.length > 0 && v.current === v.cancels.at(-1));
    },
    check: async (out, c) => {
      const versions = await stopMining(c, out);
      const [unsent, waiting, cancelling, cancelled, ...rest] = lines(out);
      assert.deepEqual(rest, []);
      const payout = await transaction(c, versions.id);
      const bonus = await transaction(c, (await versionsOf(c, 'payout-2025-02-01-user-79-bonus'))?.id as string);
      // Not sent yet: cancelled at once, never sent, no nonce.
      assert.equal(unsent, 'cancelled null Cancelled by cancel-transaction');
      assert.equal(bonus.status, 'cancelled');
      assert.equal(bonus.afterTransactionId, payout.id);
      assert.equal(bonus.transactionHash, null);
      // Sent: cancelling, then cancelled once the transfer at its nonce was mined.
      assert.equal(waiting, `broadcasted ${payout.nonce}`);
      assert.equal(cancelling, 'cancelling');
      assert.equal(cancelled, `cancelled ${payout.nonce} 21000 Cancelled by cancel-transaction`);
      assert.equal(payout.status, 'cancelled');
      assert.deepEqual(versions.cancels, [payout.transactionHash], 'one cancelling transfer, the one mined');
      const chain = readClient(c.anvil.url);
      const transfer = await chain.getTransaction({ hash: payout.transactionHash });
      assert.equal(transfer.from.toLowerCase(), c.wallet.toLowerCase());
      assert.equal(transfer.to?.toLowerCase(), c.wallet.toLowerCase(), 'a transfer to the wallet itself');
      assert.equal(transfer.value, 0n);
      assert.equal(transfer.input, '0x');
      assert.equal(transfer.nonce, payout.nonce, 'at the payout’s nonce');
      assert.equal(transfer.blockNumber, BigInt(payout.blockNumber));
      const originals = versions.previous.filter((h) => !versions.cancels.includes(h));
      assert.equal(originals.length, 1, 'the payout was sent once, then replaced by the transfer');
      assert.equal(await receipt(c, originals[0] as Hash), null, 'the payout itself was never mined');
      // The call never ran: no token moved.
      const before = c.values.beforeCancel as { wallet: bigint; recipient: bigint };
      assert.equal(await c.token.balanceOf(c.wallet), before.wallet);
      assert.equal(await c.token.balanceOf(RECIPIENT), before.recipient);
    },
  },
};

/** The sample's two transactions, the approval first, found by the keys the page gives them. */
async function chain(c: Context) {
  const res = await c.h.call('get-transactions', { headers: apiKey(c.key), query: { perPage: '100' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const byKey = (key: string) => {
    const found = res.body.data.transactions.find((t: { idempotencyKey: string }) => t.idempotencyKey === key);
    assert.ok(found, `no transaction with the key ${key}`);
    return transaction(c, found.id);
  };
  return Promise.all([byKey('order-1044-approve'), byKey('order-1044-transfer')]);
}
