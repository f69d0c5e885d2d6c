import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, compileCounter, deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { encodeAbiParameters, keccak256, type PublicClient, parseAbiParameters } from 'viem';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, incrementMany, settled } from '#api-testing/transactionFlow.ts';

describe('transactions on anvil: execute, lifecycle, idempotency, nonces, listing', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let chain: PublicClient;
  let counter: `0x${string}`;
  let p: Awaited<ReturnType<typeof counterProject>>;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url }, worker: true });
    chain = readClient(anvil.url);
    counter = await deployCounter(anvil.url);
    p = await counterProject(h, counter);
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  const execute = (name: string, functionArgs: string[], idempotencyKey: string, headers = p.headers) =>
    h.call('execute-transaction', {
      headers,
      body: { contractActivatedFunctionId: p.ids[name], functionArgs, idempotencyKey },
    });
  const read = (functionName: string, args: unknown[] = []) =>
    chain.readContract({ address: counter, abi: compileCounter().abi, functionName, args } as never);

  it('executes from the testnet system wallet: created → succeeded, with hash, block and gas used from the chain', async () => {
    const res = await execute('increment', ['5'], 'first');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const accepted = res.body.transaction;
    assert.equal(accepted.status, 'created');
    assert.equal(accepted.networkId, 1337);
    assert.deepEqual(accepted.functionArgs, ['5']);
    const done = await settled(h, p.headers, accepted.id);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    const receipt = await chain.getTransactionReceipt({ hash: done.transactionHash });
    const sent = await chain.getTransaction({ hash: done.transactionHash });
    assert.equal(done.blockNumber, Number(receipt.blockNumber));
    assert.equal(done.gasUsed, receipt.gasUsed.toString());
    assert.equal(done.gasPrice, receipt.effectiveGasPrice.toString());
    assert.equal(done.gasLimit, sent.gas.toString());
    assert.equal(done.nonce, sent.nonce);
    assert.equal(sent.from.toLowerCase(), p.wallet.toLowerCase());
    assert.equal(sent.type, 'eip1559');
    assert.equal(await read('count'), 5n);
  });

  it('refuses a call that reverts before queueing, with the decoded reason, and creates nothing', async () => {
    const before = (await h.call('get-transactions', { headers: p.headers })).body.meta.totalItems;
    const custom = await execute('increment', ['5000'], 'too-large');
    assert.equal(custom.status, 422);
    assert.equal(custom.body.code, 'EXECUTION_REVERTED');
    assert.equal(custom.body.message, 'The call reverts: TooLarge(5000, 1000)');
    await settled(h, p.headers, (await execute('setLocked', ['true'], 'lock')).body.transaction.id);
    const locked = await execute('increment', ['1'], 'while-locked');
    assert.equal(locked.status, 422);
    assert.equal(locked.body.message, 'The call reverts: counter is locked');
    await settled(h, p.headers, (await execute('setLocked', ['false'], 'unlock')).body.transaction.id);
    const after = (await h.call('get-transactions', { headers: p.headers })).body.meta.totalItems;
    assert.equal(after, before + 2, 'only the lock and unlock transactions were created');
  });

  it('ends reverted, with the reason, when the state changed between acceptance and mining', async () => {
    await chain.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    try {
      const a = await execute('claim', ['7'], 'claim-a');
      const b = await execute('claim', ['7'], 'claim-b');
      assert.equal(a.status, 201);
      assert.equal(b.status, 201, 'both simulate against the same state');
      for (const t of [a, b]) {
        await waitFor(async () => {
          const res = await h.call('get-transaction', {
            headers: p.headers,
            query: { transactionId: t.body.transaction.id },
          });
          return res.body.transaction.status === 'broadcasted' ? true : undefined;
        });
      }
      await chain.request({ method: 'evm_mine' as never, params: [] as never });
    } finally {
      await chain.request({ method: 'evm_setAutomine' as never, params: [true] as never });
    }
    const results = await Promise.all(
      ['claim-a', 'claim-b'].map(async (key) => {
        const again = await execute('claim', ['7'], key);
        return settled(h, p.headers, again.body.transaction.id);
      }),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, ['reverted', 'succeeded']);
    const reverted = results.find((r) => r.status === 'reverted');
    assert.equal(reverted?.errorMessage, 'Reverted on chain: already claimed');
    assert.ok(reverted?.transactionHash && reverted.blockNumber && reverted.gasUsed);
  });

  it('converts every argument type from strings (integers, bool, address, bytes, string, arrays, tuples)', async () => {
    const who = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    const tag = `0x${'ab'.repeat(32)}`;
    const args = [who, 'true', tag, '0xdeadbeef', 'héllo', '["1", 2, "0x03"]', '-42', '{"x": "-1", "y": 2}'];
    const res = await execute('record', args, 'record');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const done = await settled(h, p.headers, res.body.transaction.id);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    const expected = keccak256(
      encodeAbiParameters(
        parseAbiParameters('address, bool, bytes32, bytes, string, uint256[], int64, (int64 x, int64 y)'),
        [who, true, tag as `0x${string}`, '0xdeadbeef', 'héllo', [1n, 2n, 3n], -42n, { x: -1n, y: 2n }],
      ),
    );
    assert.equal(await read('lastRecord'), expected);
  });

  it('answers 400 naming the argument for a wrong count or value', async () => {
    const cases: [string, string[], string, RegExp][] = [
      ['increment', [], 'body.functionArgs', /takes 1 argument/],
      ['increment', ['12.5'], 'body.functionArgs[0]', /must be an integer/],
      ['increment', ['-1'], 'body.functionArgs[0]', /out of range for uint256/],
      ['setLocked', ['yes'], 'body.functionArgs[0]', /true or false/],
      ['record', ['0x12', 'true', '0x', '0x', '', '[]', '0', '[0,0]'], 'body.functionArgs[0]', /address/],
      [
        'record',
        ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', 'true', '0xab', '0x', '', '[]', '0', '[0,0]'],
        'body.functionArgs[2]',
        /exactly 32 bytes/,
      ],
      [
        'record',
        [`0x${'11'.repeat(20)}`, 'false', `0x${'00'.repeat(32)}`, '0x', '', '[1, "x"]', '0', '[0,0]'],
        'body.functionArgs[5][1]',
        /integer/,
      ],
    ];
    for (const [name, args, field, message] of cases) {
      const res = await execute(name, args, `bad-${field}-${args.length}-${Math.random()}`);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.details[0].field, field, JSON.stringify(res.body));
      assert.match(res.body.details[0].message, message);
    }
  });

  it('idempotency: same key and body → the original; same key, other body → 409', async () => {
    const first = await execute('increment', ['1'], 'idem');
    const again = await execute('increment', ['1'], 'idem');
    assert.equal(again.status, 201);
    assert.equal(again.body.transaction.id, first.body.transaction.id);
    const other = await execute('increment', ['2'], 'idem');
    assert.equal(other.status, 409);
    assert.equal(other.body.code, 'CONFLICT');
    assert.match(other.body.message, /already used for a different request/);
    // A different body is a conflict even when it would be refused on its own (an argument that does not convert).
    const invalid = await execute('increment', ['not a number'], 'idem');
    assert.equal(invalid.status, 409);
    assert.equal(invalid.body.code, 'CONFLICT');
  });

  it('100 concurrent executions with one key → one transaction row and one transaction on chain', async () => {
    const q = await counterProject(h, counter, ['increment']);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        h.call('execute-transaction', {
          headers: q.headers,
          body: { contractActivatedFunctionId: q.ids.increment, functionArgs: ['3'], idempotencyKey: 'same' },
        }),
      ),
    );
    assert.ok(
      answers.every((a) => a.status === 201),
      JSON.stringify(answers.find((a) => a.status !== 201)?.body),
    );
    assert.equal(new Set(answers.map((a) => a.body.transaction.id)).size, 1);
    const { rows } = await h.db.query('SELECT count(*)::int AS n FROM transactions WHERE project_id = $1', [
      q.projectId,
    ]);
    assert.equal(rows[0]?.n, 1);
    const done = await settled(h, q.headers, answers[0]?.body.transaction.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(await chain.getTransactionCount({ address: q.wallet }), 1);
  });

  it('200 concurrent executions with distinct keys → all succeeded, nonces contiguous, no duplicates', async () => {
    const q = await counterProject(h, counter, ['increment']);
    const answers = await incrementMany(h, q, 200, 'k');
    const done = await Promise.all(answers.map((a) => settled(h, q.headers, a.body.transaction.id, 60_000))).catch(
      async (error) => {
        // What was left, for the record: statuses, the node's pool, and the queued jobs.
        const statuses = await h.db.query(
          'SELECT status, count(*)::int AS n, min(nonce) AS nonce FROM transactions GROUP BY status',
        );
        const pool = await chain.request({ method: 'txpool_status' as never });
        const jobs = await h.db.query(
          'SELECT task_identifier, key, run_at, attempts, locked_at FROM graphile_worker.jobs',
        );
        throw new Error(
          `${(error as Error).message}; ${JSON.stringify({ statuses: statuses.rows, pool, jobs: jobs.rows })}`,
        );
      },
    );
    assert.ok(
      done.every((t) => t.status === 'succeeded'),
      JSON.stringify(done.find((t) => t.status !== 'succeeded')),
    );
    const nonces = done.map((t) => t.nonce).sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: 200 }, (_, i) => i),
    );
    assert.equal(new Set(done.map((t) => t.transactionHash)).size, 200);
    assert.equal(await chain.getTransactionCount({ address: q.wallet }), 200);

    // Listing: defaults, bounds, ordering, totals, filters.
    const page1 = await h.call('get-transactions', { headers: q.headers });
    assert.deepEqual(page1.body.meta, { pageNumber: 1, perPage: 20, totalPage: 10, totalItems: 200 });
    assert.equal(page1.body.data.transactions.length, 20);
    const big = await h.call('get-transactions', { headers: q.headers, query: { perPage: '100', page: '2' } });
    assert.deepEqual(big.body.meta, { pageNumber: 2, perPage: 100, totalPage: 2, totalItems: 200 });
    const all = [
      ...(await h.call('get-transactions', { headers: q.headers, query: { perPage: '100' } })).body.data.transactions,
      ...big.body.data.transactions,
    ];
    assert.equal(new Set(all.map((t: { id: string }) => t.id)).size, 200);
    const times = all.map((t: { createdAt: string }) => Date.parse(t.createdAt));
    assert.ok(
      times.every((t: number, i: number) => i === 0 || t <= (times[i - 1] as number)),
      'newest first',
    );
    const beyond = await h.call('get-transactions', { headers: q.headers, query: { page: '11' } });
    assert.deepEqual(beyond.body.data.transactions, []);
    assert.equal(beyond.body.meta.totalItems, 200);
    const succeeded = await h.call('get-transactions', { headers: q.headers, query: { status: 'succeeded' } });
    assert.equal(succeeded.body.meta.totalItems, 200);
    const failed = await h.call('get-transactions', { headers: q.headers, query: { status: 'failed' } });
    assert.deepEqual(failed.body.meta, { pageNumber: 1, perPage: 20, totalPage: 0, totalItems: 0 });
    const mineFailed = await h.call('get-transactions', { headers: p.headers, query: { status: 'failed' } });
    assert.deepEqual(
      mineFailed.body.data.transactions.map((t: { status: string }) => t.status),
      ['reverted'],
    );
  });

  it('wakes the sender once per run, not per request; a wake whose job was lost is requested again after 10 s', async () => {
    await settled(h, p.headers, (await execute('increment', ['1'], 'wake-first')).body.transaction.id);
    const sender = `SELECT s.system_wallet_id AS "walletId" FROM transaction_senders s
      JOIN system_wallets w ON w.id = s.system_wallet_id WHERE lower(w.address) = lower($1) AND s.network_id = 1337`;
    const { rows } = await h.db.query<{ walletId: number }>(sender, [p.wallet]);
    assert.equal(rows.length, 1, 'the (wallet, network) has its wake flag row');
    const walletId = rows[0]?.walletId;
    const requestedAt = async () =>
      (
        await h.db.query<{ at: Date | null }>(
          'SELECT wake_requested_at AS at FROM transaction_senders WHERE system_wallet_id = $1 AND network_id = 1337',
          [walletId],
        )
      ).rows[0]?.at;
    assert.equal(await requestedAt(), null, 'the sender cleared the request when it ran');

    // A pending wake whose job is gone (as if lost): a fresh request does not queue another job…
    await h.db.query(
      'UPDATE transaction_senders SET wake_requested_at = now() WHERE system_wallet_id = $1 AND network_id = 1337',
      [walletId],
    );
    const stranded = (await execute('increment', ['1'], 'wake-stranded')).body.transaction.id;
    await new Promise((r) => setTimeout(r, 1_500));
    const waiting = await h.call('get-transaction', { headers: p.headers, query: { transactionId: stranded } });
    assert.equal(waiting.body.transaction.status, 'created', 'no job was queued while a wake was pending');
    // …but once the request is 10 s old without a sender clearing it, the next acceptance requests it again.
    await h.db.query(
      `UPDATE transaction_senders SET wake_requested_at = now() - interval '11 seconds'
       WHERE system_wallet_id = $1 AND network_id = 1337`,
      [walletId],
    );
    const next = (await execute('increment', ['1'], 'wake-again')).body.transaction.id;
    for (const id of [stranded, next]) assert.equal((await settled(h, p.headers, id)).status, 'succeeded');
  });

  it('get-transaction is project-scoped; a deactivated function cannot be executed', async () => {
    const mine = (await execute('increment', ['1'], 'scoped')).body.transaction.id;
    const stranger = apiKey((await h.project('Stranger')).apiKey);
    const res = await h.call('get-transaction', { headers: stranger, query: { transactionId: mine } });
    assert.equal(res.status, 404);
    const foreignExecute = await execute('increment', ['1'], 'foreign', stranger);
    assert.equal(foreignExecute.status, 404);
    const before = await execute('claim', ['98'], 'before-deactivation');
    assert.equal(before.status, 201);
    await h.call('deactivate-contract-function', {
      headers: p.headers,
      body: { contractId: p.contractId, formattedAbiFunction: 'function claim(uint256 id)' },
    });
    const inactive = await execute('claim', ['99'], 'inactive');
    assert.equal(inactive.status, 422);
    assert.equal(inactive.body.code, 'FUNCTION_NOT_ACTIVE');
    // A key stored before the deactivation still answers with its transaction.
    const replay = await execute('claim', ['98'], 'before-deactivation');
    assert.equal(replay.status, 201);
    assert.equal(replay.body.transaction.id, before.body.transaction.id);
  });

  it('imports and activates on an unconfigured network; executing names the missing RPC_URL', async () => {
    const headers = p.headers;
    const imported = await h.call('import-contract', {
      headers,
      body: { networkId: 11155111, address: counter, formattedAbi: COUNTER_FORMATTED_ABI },
    });
    assert.equal(imported.status, 201);
    const activated = await h.call('activate-contract-function', {
      headers,
      body: { contractId: imported.body.contract.id, formattedAbiFunction: 'function increment(uint256 amount)' },
    });
    const res = await h.call('execute-transaction', {
      headers,
      body: {
        contractActivatedFunctionId: activated.body.contractActivatedFunction.id,
        functionArgs: ['1'],
        idempotencyKey: 'sepolia',
      },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'NETWORK_NOT_CONFIGURED');
    assert.match(res.body.message, /set RPC_URL_11155111/);
  });
});
