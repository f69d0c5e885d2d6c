import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { bundledEntry } from '@mountain/testkit/devBundle.js';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { startRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Hex, PublicClient } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import { monitorJob, sendJob } from '#api/transactions/jobs.ts';
import type { TransactionSettings } from '#api/transactions/settings.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, FINAL, incrementMany, settled } from '#api-testing/transactionFlow.ts';

const API_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('transaction pipeline under failure: worker killed, RPC unreachable, not mined in time', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let chain: PublicClient;
  let counter: `0x${string}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mountain-tx-'));
  const children: ChildProcess[] = [];

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    chain = readClient(anvil.url);
    counter = await deployCounter(anvil.url);
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await h?.close();
    await anvil?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A `--role worker` process on the test database, as production runs it. */
  async function spawnWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [...(await bundledEntry('apps/api/src/main.ts')), '--role', 'worker'], {
      cwd: API_DIR,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATA_DIR: dataDir,
        DATABASE_URL: h.db.pool.options.connectionString as string,
        RPC_URL_1337: anvil.url,
        MASTER_KEY: h.masterKey.toString('base64'),
        TOKEN_SIGNING_KEY: h.tokenSigningKey.toString('base64'),
        LOG_LEVEL: 'warn',
      },
    });
    children.push(child);
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker did not start: ${stderr}`)), 30_000);
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('mountain worker running')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${stderr}`)));
    });
    return child;
  }

  /** A worker in this process running only the transaction tasks, with its own chain endpoint and settings. */
  async function inProcessWorker(rpcUrl: string, settings: Partial<TransactionSettings>) {
    const stop = new AbortController();
    const worker = createWorker({
      deps: {
        db: h.db,
        chains: createChains({ 1337: rpcUrl }),
        signers: createSignerProvider(h.keys),
        masterKey: h.masterKey,
        signal: stop.signal,
        transactions: settings,
      },
      jobs: [sendJob, monitorJob],
    });
    await worker.start();
    return async () => {
      stop.abort();
      await worker.stop();
    };
  }

  async function statusCounts(projectId: number): Promise<Record<string, number>> {
    const { rows } = await h.db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM transactions WHERE project_id = $1 GROUP BY status',
      [projectId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  it('a worker killed (SIGKILL) mid-sending, then restarted: every transaction final, none sent twice', async () => {
    const p = await counterProject(h, counter, ['increment']);
    const count = 150;
    await incrementMany(h, p, count, 'c');

    const first = await spawnWorker();
    await waitFor(async () => ((await statusCounts(p.projectId)).processing ? true : undefined), 30_000, 'sending');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const atKill = await statusCounts(p.projectId);
    assert.ok((atKill.succeeded ?? 0) < count, `killed before the end: ${JSON.stringify(atKill)}`);

    const second = await spawnWorker();
    await waitFor(
      async () => {
        const counts = await statusCounts(p.projectId);
        return FINAL.reduce((sum, s) => sum + (counts[s] ?? 0), 0) === count ? true : undefined;
      },
      60_000,
      'every transaction to be final',
    );
    second.kill('SIGTERM');
    const { rows } = await h.db.query<{ nonce: number; hash: Hex; data: Hex; status: string }>(
      `SELECT nonce, transaction_hash AS hash, data, status FROM transactions WHERE project_id = $1 ORDER BY nonce`,
      [p.projectId],
    );
    assert.deepEqual(new Set(rows.map((r) => r.status)), new Set(['succeeded']), JSON.stringify(atKill));
    assert.deepEqual(
      rows.map((r) => r.nonce),
      Array.from({ length: count }, (_, i) => i),
    );
    assert.equal(await chain.getTransactionCount({ address: p.wallet }), count);
    // Every transaction the wallet sent on chain, by calldata: each of ours exactly once, with its recorded nonce.
    const sent = new Map<string, { nonce: number; hash: Hex }[]>();
    const latest = await chain.getBlockNumber();
    for (let n = 0n; n <= latest; n++) {
      const block = await chain.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== p.wallet.toLowerCase()) continue;
        sent.set(tx.input, [...(sent.get(tx.input) ?? []), { nonce: tx.nonce, hash: tx.hash }]);
      }
    }
    for (const row of rows) {
      assert.deepEqual(sent.get(row.data), [{ nonce: row.nonce, hash: row.hash }]);
    }
  });

  it('RPC unreachable while sending: broadcast-failed with a readable message after the retries, nonce not used', async () => {
    const p = await counterProject(h, counter, ['increment']);
    const dead = `http://127.0.0.1:${await freePort()}`;
    const stopDead = await inProcessWorker(dead, { retryDelaysMs: [100, 200] });
    try {
      const ids = (await incrementMany(h, p, 3, 'dead')).map((res) => res.body.transaction.id);
      for (const id of ids) {
        const t = await settled(h, p.headers, id);
        assert.equal(t.status, 'broadcast-failed');
        assert.match(t.errorMessage, /^The RPC endpoint of network 1337 was unreachable after 3 attempts: /);
        assert.equal(t.nonce, null);
      }
      assert.equal((await statusCounts(p.projectId)).processing, undefined);
    } finally {
      await stopDead();
    }
    const stopLive = await inProcessWorker(anvil.url, {});
    try {
      const res = await h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: 'alive' },
      });
      const t = await settled(h, p.headers, res.body.transaction.id);
      assert.equal(t.status, 'succeeded');
      assert.equal(t.nonce, 0, 'the failures left no nonce behind');
    } finally {
      await stopLive();
    }
  });

  it('executions during an outage use up no retry, and an endpoint that answers again is waited for', async () => {
    const p = await counterProject(h, counter, ['increment']);
    const port = await freePort();
    // Nothing listens on the port yet: the endpoint is unreachable. Three attempts, 1 s apart.
    const stop = await inProcessWorker(`http://127.0.0.1:${port}`, { retryDelaysMs: [1_000, 1_000] });
    let proxy: Awaited<ReturnType<typeof startRpcProxy>> | undefined;
    try {
      // Each execution wakes the sender at once: eight runs meet the outage within half a second.
      const executed = await incrementMany(h, p, 8, 'outage', { spacingMs: 60 });
      const ids: string[] = executed.map((res) => res.body.transaction.id);
      // The endpoint comes back before the schedule's third attempt (at 2 s or later).
      proxy = await startRpcProxy(anvil.url, port);
      for (const id of ids) assert.equal((await settled(h, p.headers, id)).status, 'succeeded', id);
    } finally {
      await stop();
      await proxy?.close();
    }
  });

  it('a gas estimate the node cannot make now (a reorg in progress) is tried again; one it never makes fails', async () => {
    const p = await counterProject(h, counter, ['increment']);
    const proxy = await startRpcProxy(anvil.url, await freePort());
    const blockOutOfRange = { code: -32000, message: 'BlockOutOfRangeError: block height is 41 but requested was 42' };
    const stop = await inProcessWorker(proxy.url, { retryDelaysMs: [100, 100, 100] });
    try {
      // An execution whose first `times` gas estimates the node refuses as it would during a reorg.
      const refusedEstimates = async (times: number, idempotencyKey: string) => {
        proxy.settings.failNext = { method: 'eth_estimateGas', times, error: blockOutOfRange };
        const res = await h.call('execute-transaction', {
          headers: p.headers,
          body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey },
        });
        return settled(h, p.headers, res.body.transaction.id);
      };
      // The first two estimates meet the reorg: the transaction waits and goes once the node answers.
      const passed = await refusedEstimates(2, 'estimate-late');
      assert.equal(passed.status, 'succeeded');
      assert.equal(proxy.settings.failNext?.times, 0, 'both refusals were met');
      // A node that never estimates it: broadcast-failed after the retries, with its answer.
      const failed = await refusedEstimates(1_000, 'estimate-never');
      assert.equal(failed.status, 'broadcast-failed');
      assert.equal(
        failed.errorMessage,
        'Gas estimation failed 4 times: BlockOutOfRangeError: block height is 41 but requested was 42',
      );
    } finally {
      await stop();
      await proxy.close();
    }
  });

  it('RPC lost after nonces were allocated: kept with their nonces while it is back in time, else released', async () => {
    const proxy = await startRpcProxy(anvil.url, await freePort());
    try {
      for (const comesBack of [true, false]) {
        const p = await counterProject(h, counter, ['increment']);
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await h.call('execute-transaction', {
            headers: p.headers,
            body: {
              contractActivatedFunctionId: p.ids.increment,
              functionArgs: [String(i + 1)],
              idempotencyKey: `lost${i}`,
            },
          });
          ids.push(res.body.transaction.id);
        }
        // The state a sender leaves when the endpoint goes away between allocating nonces and broadcasting
        // (it had funded the wallet already).
        await chain.request({
          method: 'anvil_setBalance' as never,
          params: [p.wallet, '0x3635c9adc5dea00000'] as never,
        });
        await h.db.query(
          `UPDATE transactions t SET status = 'processing', nonce = v.n, gas_limit = 100000, gas_price = 10000000000,
             max_priority_fee_per_gas = 1000000000
           FROM unnest($1::uuid[], $2::bigint[]) AS v(id, n) WHERE t.id = v.id`,
          [ids, [0, 1, 2]],
        );
        await h.db.query(
          `INSERT INTO wallet_nonces (system_wallet_id, network_id, next_nonce)
           SELECT system_wallet_id, 1337, 3 FROM transactions WHERE id = $1`,
          [ids[0]],
        );
        await proxy.down();
        const stop = await inProcessWorker(proxy.url, { retryDelaysMs: comesBack ? [300, 300, 300, 300] : [50, 50] });
        try {
          if (comesBack) {
            await waitFor(async () => {
              const { rows } = await h.db.query<{ n: number }>(
                `SELECT s.unreachable_attempts AS n FROM transaction_senders s
                   JOIN transactions t ON t.system_wallet_id = s.system_wallet_id AND t.network_id = s.network_id
                  WHERE t.id = $1`,
                [ids[0]],
              );
              return (rows[0]?.n ?? 0) >= 1 ? true : undefined;
            });
            assert.equal((await statusCounts(p.projectId)).processing, 3, 'still processing, with their nonces');
            await proxy.up();
          }
          const final = await Promise.all(ids.map((id) => settled(h, p.headers, id)));
          if (comesBack) {
            assert.deepEqual(
              final.map((t) => [t.status, t.nonce]),
              [
                ['succeeded', 0],
                ['succeeded', 1],
                ['succeeded', 2],
              ],
            );
          } else {
            for (const t of final) {
              assert.equal(t.status, 'broadcast-failed');
              assert.equal(t.nonce, null, 'the nonce is released');
              assert.match(t.errorMessage, /unreachable after 3 attempts/);
            }
            await proxy.up();
            const again = await h.call('execute-transaction', {
              headers: p.headers,
              body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['9'], idempotencyKey: 'after' },
            });
            const t = await settled(h, p.headers, again.body.transaction.id);
            assert.equal(t.status, 'succeeded', t.errorMessage);
            assert.equal(t.nonce, 0, 'released nonces are used again: no gap');
          }
        } finally {
          await stop();
        }
      }
    } finally {
      await proxy.close();
    }
  });

  it('a transaction not mined in time is re-sent with a higher fee on the same nonce', async () => {
    const p = await counterProject(h, counter, ['increment']);
    await chain.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    const stop = await inProcessWorker(anvil.url, { resendAfterMs: 300, monitorPollMs: 100 });
    try {
      const res = await h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['2'], idempotencyKey: 'slow' },
      });
      const id = res.body.transaction.id;
      const bumped = await waitFor(async () => {
        const { rows } = await h.db.query<{ hashes: Hex[] }>(
          'SELECT previous_hashes AS hashes FROM transactions WHERE id = $1 AND fee_bumps >= 1',
          [id],
        );
        return rows[0];
      });
      await chain.request({ method: 'evm_mine' as never, params: [] as never });
      await chain.request({ method: 'evm_setAutomine' as never, params: [true] as never });
      const t = await settled(h, p.headers, id);
      assert.equal(t.status, 'succeeded', t.errorMessage);
      const [original, replacement] = bumped.hashes as [Hex, Hex];
      assert.ok(replacement, 'a second hash was broadcast');
      const mined = await chain.getTransaction({ hash: t.transactionHash });
      assert.equal(mined.nonce, t.nonce);
      assert.equal(await chain.getTransactionCount({ address: p.wallet }), 1);
      if (t.transactionHash === replacement) {
        const first = await chain.getTransaction({ hash: original }).catch(() => undefined);
        assert.equal(first?.blockNumber ?? null, null, 'the replaced transaction was not mined');
      }
    } finally {
      await chain.request({ method: 'evm_setAutomine' as never, params: [true] as never });
      await stop();
    }
  });
});
