// Wallet pools on a lab chain with 1 s blocks behind a node that keeps geth's pool rules (16 executable
// transactions per sender): a project adds wallets (add-system-wallets), and its transactions spread over them by
// free in-flight room, keep one wallet per ordering key, or take the wallet they name. Every row is final on the
// canonical chain exactly once, under contiguous nonces per wallet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LabChain, startLabChain } from '@mountain/testkit/lab/chain.ts';
import { startProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { createProject } from '#api/projects/projects.ts';
import { assertFinalOnChain } from '#api-testing/canonicalTruth.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';

const POOL = 8;
const ROWS = 200;
const ORDERED = 40;

describe('wallet pools', () => {
  let chain: LabChain;
  let provider: Awaited<ReturnType<typeof startProviderProxy>>;
  let h: Harness;
  let counter: `0x${string}`;

  before(async () => {
    chain = await startLabChain({ port: await freePort(), blockTimeSeconds: 1, slotsInAnEpoch: 2 });
    counter = await deployCounter(chain.url);
    provider = await startProviderProxy(chain.url, { port: await freePort(), txpool: true });
    h = await createHarness({
      rpcUrls: { 1337: provider.url },
      worker: true,
      maxWalletsPerProject: 10,
      transactions: { maxInFlight: { 1337: 16 }, finalityPollMs: 300, monitorPollMs: 100 },
    });
  });
  after(async () => {
    await h?.close();
    await provider?.close();
    await chain?.stop();
  });

  const add = (headers: Record<string, string>, body: unknown) =>
    h.call('add-system-wallets', { headers, body: body as object });

  it('adds wallets to a pool, within the limit, and refuses what is wrong by name', async () => {
    const p = await counterProject(h, counter, ['increment']);
    const added = await add(p.headers, { networkType: 'testnet', count: 3 });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const wallets = added.body.data.mSystemWallets as { id: number; address: string; networkType: string }[];
    assert.equal(wallets.length, 5);
    assert.deepEqual(
      wallets.map((w) => w.networkType),
      ['mainnet', 'testnet', 'testnet', 'testnet', 'testnet'],
    );
    assert.equal(new Set(wallets.map((w) => w.address.toLowerCase())).size, 5, 'every wallet its own address');
    assert.equal(wallets[1]?.id, added.body.data.mSystemWalletTestnet.id, 'the primary wallet stays first');
    // Each is the deployment mnemonic's key at its derivation index: the worker signs for it.
    const { rows } = await h.db.query<{ address: string; index: number }>(
      'SELECT address, derivation_index AS index FROM system_wallets WHERE project_id = $1 AND pool_position > 0',
      [p.projectId],
    );
    for (const row of rows) assert.equal(row.address, h.keys.account(row.index).address);
    const detail = await h.call('get-project-detail', { headers: p.headers });
    assert.deepEqual(detail.body.data.mSystemWallets, wallets);
    // Each pool wallet's balance on the network, against the low-balance threshold: a new wallet holds nothing.
    const balances = await h.call('get-wallet-balances', { headers: p.headers });
    assert.equal(balances.status, 200);
    const testnet = wallets.filter((w) => w.networkType === 'testnet');
    assert.deepEqual(
      balances.body.balances.map((b: { systemWalletId: number }) => b.systemWalletId),
      testnet.map((w) => w.id),
    );
    for (const b of balances.body.balances.slice(1)) {
      assert.deepEqual(
        { balance: b.balance, low: b.low, lowBalanceThreshold: b.lowBalanceThreshold, inFlight: b.inFlight },
        { balance: '0', low: true, lowBalanceThreshold: '1000000000000000000', inFlight: 0 },
      );
    }

    const over = await add(p.headers, { networkType: 'testnet', count: 7 });
    assert.equal(over.status, 409);
    assert.equal(over.body.code, 'WALLET_LIMIT_REACHED');
    assert.match(over.body.message, /would have 11 testnet system wallets; this deployment allows 10/);
    const wrong = await add(p.headers, { networkType: 'devnet', count: 0 });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.message, /networkType/);
    assert.match(wrong.body.message, /count/);

    const shared = await createProject(
      h.db,
      h.keys,
      { projectName: 'On the shared wallet', ownerType: 'shared', allowSharedWallet: true, keyMode: 'test' },
      {},
    );
    const refused = await add(apiKey(shared.apiKey), { networkType: 'testnet', count: 1 });
    assert.equal(refused.status, 409);
    assert.match(refused.body.message, /shared testnet wallet, which has no pool/);
  });

  it(`sends ${ROWS} rows through a pool of ${POOL}: spread, ordered by key, pinned, each final once`, async () => {
    const p = await counterProject(h, counter, ['increment']);
    const added = await add(p.headers, { networkType: 'testnet', count: POOL - 1 });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const pool = (added.body.data.mSystemWallets as { id: number; networkType: string }[]).filter(
      (w) => w.networkType === 'testnet',
    );
    const pinnedWallet = pool[3]?.id as number;
    const execute = (i: number, extra: Record<string, unknown>) =>
      h.call('execute-transaction', {
        headers: p.headers,
        body: {
          contractActivatedFunctionId: p.ids.increment,
          functionArgs: ['1'],
          idempotencyKey: `pool-${i}`,
          ...extra,
        },
      });
    const answers = [];
    // In waves, as clients send: the ordered rows one after another (their order is their acceptance order).
    for (let start = 0; start < ROWS; start += 20) {
      const wave = Array.from({ length: 20 }, (_, k) => start + k);
      const spread = wave.filter((i) => i % 5 !== 0);
      const ordered = wave.filter((i) => i % 5 === 0);
      const [spreadAnswers, orderedAnswers] = await Promise.all([
        Promise.all(spread.map((i) => execute(i, i % 7 === 1 ? { mSystemWalletId: pinnedWallet } : {}))),
        (async () => {
          const out = [];
          for (const i of ordered) out.push(await execute(i, { orderingKey: 'ledger-42' }));
          return out;
        })(),
      ]);
      answers.push(...spreadAnswers, ...orderedAnswers);
    }
    for (const res of answers) assert.equal(res.status, 201, JSON.stringify(res.body));
    const pinned = (t: { idempotencyKey: string; orderingKey: string | null }) =>
      t.orderingKey === null && Number(t.idempotencyKey.slice('pool-'.length)) % 7 === 1;
    const pinnedRows = answers.map((res) => res.body.transaction).filter(pinned);
    assert.ok(pinnedRows.length > 20);
    for (const t of pinnedRows) assert.equal(t.mSystemWalletId, pinnedWallet);

    const rows = await waitFor(
      async () => {
        const { rows } = await h.db.query<{
          status: string;
          wallet: number;
          nonce: number;
          block: number;
          key: string | null;
          created: Date;
        }>(
          `SELECT status, system_wallet_id AS wallet, nonce, block_number::int AS block, ordering_key AS key,
                  created_at AS created
             FROM transactions WHERE project_id = $1`,
          [p.projectId],
        );
        return rows.length === ROWS && rows.every((r) => r.status === 'succeeded') ? rows : undefined;
      },
      120_000,
      `${ROWS} rows mined`,
    );
    const used = new Set(rows.map((r) => r.wallet));
    assert.equal(used.size, POOL, 'every wallet of the pool sent');
    for (const wallet of used) {
      const nonces = rows
        .filter((r) => r.wallet === wallet)
        .map((r) => r.nonce)
        .sort((a, b) => a - b);
      assert.deepEqual(
        nonces,
        nonces.map((_, i) => i),
        `wallet ${wallet}: contiguous nonces from 0`,
      );
    }
    const ordered = rows.filter((r) => r.key === 'ledger-42').sort((a, b) => a.created.getTime() - b.created.getTime());
    assert.equal(ordered.length, ORDERED);
    assert.equal(new Set(ordered.map((r) => r.wallet)).size, 1, 'one wallet for the ordering key');
    for (let i = 1; i < ordered.length; i++) {
      assert.ok((ordered[i]?.nonce as number) > (ordered[i - 1]?.nonce as number), 'nonces in acceptance order');
      assert.ok((ordered[i]?.block as number) >= (ordered[i - 1]?.block as number), 'mined in acceptance order');
    }
    // The node never refused a sender for its 16 slots: each wallet kept under them.
    assert.equal(provider.stats.refusals.poolFull ?? 0, 0);
    // Every row final and true on the canonical chain: once each, contiguous nonces per wallet.
    await chain.mineNow(8);
    await assertFinalOnChain(h.db, (method, params) => chain.rpc(method, params), p.projectId, { contract: counter });

    const foreign = await counterProject(h, counter, ['increment']);
    const refused = await h.call('execute-transaction', {
      headers: foreign.headers,
      body: {
        contractActivatedFunctionId: foreign.ids.increment,
        functionArgs: ['1'],
        idempotencyKey: 'not-mine',
        mSystemWalletId: pinnedWallet,
      },
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /body\.mSystemWalletId is not a testnet system wallet of project/);
  });
});
