import { randomBytes } from 'node:crypto';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { type Figure, recordBench } from '@mountain/testkit/benchResults.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, compileCounter, deployCounter } from '@mountain/testkit/testContract.ts';
import { encodeFunctionData, type Hex, http, type PublicClient, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import { DEV_STALL_MS } from '#api/chain/devChain.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { startBenchDatabase } from './benchDatabase.ts';
import { startExecuteLoad } from './executeLoadDriver.ts';
import { fireblocksSection } from './fireblocks.ts';
import { intervalMiningSection } from './intervalMining.ts';
import { kmsSection } from './kms.ts';
import { transactionEventsSection } from './webhooks.ts';

const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 6);
const deadline = setTimeout(() => {
  console.error('bench:tx did not finish within 15 minutes');
  process.exit(1);
}, 900_000);
deadline.unref();

const stops: (() => Promise<unknown> | unknown)[] = [];
const figures: Figure[] = [];
try {
  const anvil = await startAnvil({ port: await freePort() });
  stops.push(() => anvil.stop());
  const { db, masterKey, keys, apiKey } = await startBenchDatabase('tx', stops);
  const counter = await deployCounter(anvil.url);
  const chains = createChains({ 1337: anvil.url });
  const app = buildApp({ db, chains, tokenSigningKey: randomBytes(32), masterKey, bodyLimit: 65536 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  stops.push(() => app.close());
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/public-api/v3`;
  const post = async (op: string, body: object) => {
    const res = await fetch(`${base}${op}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, { id: number }>;
  };
  const contract = (await post('/contract/import-contract', {
    networkId: 1337,
    address: counter,
    formattedAbi: COUNTER_FORMATTED_ABI,
  })) as { contract: { id: number } };
  const activated = await post('/contract/activate-contract-function', {
    contractId: contract.contract.id,
    formattedAbiFunction: 'function increment(uint256 amount)',
  });
  const functionId = activated.contractActivatedFunction?.id;

  // 1. execute-transaction at a fixed rate, every request with its own idempotency key, after a warm-up at the
  //    same rate by the same generator process (the first seconds of a fresh process compile and re-compile the
  //    request path, in the API and in the generator; after 3 s the first half second measured still showed stalls
  //    of 50-100 ms, after 6 s none: those are not the steady state).
  const drive = startExecuteLoad(
    { url: `${base}/transaction/execute-transaction`, apiKey, functionId, connections: CONNECTIONS },
    stops,
  );
  await drive(RATE, WARMUP_SECONDS);
  console.log(
    `execute-transaction: ${RATE} req/s for ${SECONDS} s (open loop, latency from each request's due time; after ${WARMUP_SECONDS} s of warm-up)…`,
  );
  const result = await drive(RATE, SECONDS);
  const accepted = result.accepted;
  console.log(
    `  accepted ${accepted} (${(accepted / SECONDS).toFixed(0)}/s), non-2xx ${result.non2xx}, errors ${result.errors}; latency p50 ${result.p50} ms, p99 ${result.p99} ms (target p99 < 50 ms at 500 req/s)`,
  );
  figures.push(
    { name: `execute-transaction at ${RATE} req/s, accepted`, value: Math.round(accepted / SECONDS), unit: '/s' },
    { name: 'execute-transaction p99', value: result.p99, unit: 'ms', target: { op: '<=', value: 50 } },
  );

  // 2. Confirmed transactions per second from one system wallet: a worker drains the backlog.
  const stop = new AbortController();
  const worker = createWorker({
    deps: { db, chains, signers: createSignerProvider(keys), masterKey, signal: stop.signal },
  });
  const started = Date.now();
  let lastReport = started;
  await worker.start();
  stops.push(async () => {
    stop.abort();
    await worker.stop();
  });
  for (;;) {
    const { rows } = await db.query<{ pending: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('created', 'processing', 'broadcasted'))::int AS pending FROM transactions`,
    );
    if ((rows[0]?.pending ?? 0) === 0) break;
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      const { rows: progress } = await db.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM transactions GROUP BY status ORDER BY status',
      );
      console.log(`  still draining: ${progress.map((r) => `${r.status} ${r.n}`).join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const platformSeconds = (Date.now() - started) / 1000;
  const { rows: countRows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM transactions');
  const total = countRows[0]?.n ?? 0;
  const { rows: statusRows } = await db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM transactions GROUP BY status',
  );
  const platformRate = total / platformSeconds;
  console.log(
    `\nconfirmed from one system wallet: ${total} in ${platformSeconds.toFixed(2)} s = ${platformRate.toFixed(0)} tx/s (${statusRows.map((r) => `${r.status} ${r.n}`).join(', ')}; target ≥ 700 tx/s)`,
  );
  figures.push({
    name: 'confirmed from one system wallet',
    value: Math.round(platformRate),
    unit: 'tx/s',
    target: { op: '>=', value: 700 },
  });

  // 3. Nonce gaps.
  const { rows: nonceRows } = await db.query<{ nonce: number }>(
    `SELECT nonce FROM transactions WHERE nonce IS NOT NULL ORDER BY nonce`,
  );
  const nonces = new Set(nonceRows.map((r) => Number(r.nonce)));
  const highest = Math.max(-1, ...nonces);
  const gaps = highest + 1 - nonces.size;
  console.log(`nonce gaps: ${gaps} (nonces 0..${highest}, ${nonces.size} used; target 0)`);
  figures.push({ name: 'nonce gaps', value: gaps, unit: '', target: { op: '<=', value: 0 } });

  // Baseline: viem alone, one local account, the same calls pre-signed, sent with the same concurrency.
  // The same transport settings as the platform's clients (JSON-RPC batching).
  const chain = readClient(anvil.url, { transport: http(anvil.url, { batch: { batchSize: 64, wait: 0 } }) });
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.request({
    method: 'anvil_setBalance' as never,
    params: [account.address, `0x${parseEther('10000').toString(16)}`] as never,
  });
  const abi = compileCounter().abi;
  const data = encodeFunctionData({ abi, functionName: 'increment', args: [1n] });
  const gas = ((await chain.estimateGas({ account: account.address, to: counter, data })) * 12n) / 10n;
  const fees = await chain.estimateFeesPerGas();
  // At most 500: a longer run of pre-signed transactions from one fresh account stalls in anvil's pool.
  const baseCount = Math.min(total, 500);
  const baseStarted = Date.now();
  const signed: Hex[] = await Promise.all(
    Array.from({ length: baseCount }, (_, nonce) =>
      account.signTransaction({ chainId: 1337, type: 'eip1559', to: counter, data, nonce, gas, ...fees }),
    ),
  );
  // In nonce order, 64 per JSON-RPC batch, one batch at a time.
  for (let i = 0; i < signed.length; i += 64) {
    await Promise.all(signed.slice(i, i + 64).map((tx) => chain.sendRawTransaction({ serializedTransaction: tx })));
  }
  // anvil's automine can stall in a burst; the baseline gets the same remedy as the platform's monitor on chain
  // 1337 (after DEV_STALL_MS without progress: a block mined, and the lowest unmined nonce re-sent with a 15% higher
  // fee), so both are measured on the same terms.
  let mined = 0;
  let progressAt = Date.now();
  let bumped = { ...fees };
  for (;;) {
    const count = await chain.getTransactionCount({ address: account.address });
    if (count >= baseCount) break;
    if (count > mined) {
      mined = count;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > DEV_STALL_MS) {
      await chain.request({ method: 'evm_mine' as never });
      bumped = {
        maxFeePerGas: (bumped.maxFeePerGas * 115n) / 100n + 1n,
        maxPriorityFeePerGas: (bumped.maxPriorityFeePerGas * 115n) / 100n + 1n,
      };
      const replacement = await account.signTransaction({
        chainId: 1337,
        type: 'eip1559',
        to: counter,
        data,
        nonce: count,
        gas,
        ...bumped,
      });
      await chain.sendRawTransaction({ serializedTransaction: replacement }).catch(() => {});
      progressAt = Date.now();
    }
    if (Date.now() - baseStarted > 120_000) throw new Error('baseline: not every transaction was mined in 120 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  const baseSeconds = (Date.now() - baseStarted) / 1000;
  const baseRate = baseCount / baseSeconds;
  console.log(`baseline (viem only, ${baseCount} pre-signed, no database): ${baseRate.toFixed(0)} tx/s`);
  console.log(`ratio platform / baseline: ${(platformRate / baseRate).toFixed(2)}`);
  figures.push(
    { name: 'baseline (viem only)', value: Math.round(baseRate), unit: 'tx/s' },
    { name: 'ratio platform / baseline', value: Number((platformRate / baseRate).toFixed(2)), unit: '' },
  );
} finally {
  for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => {});
}
const held = await intervalMiningSection().catch((error) => {
  console.error(error);
  return false;
});
const fireblocksHeld = await fireblocksSection().catch((error) => {
  console.error(error);
  return false;
});
const kmsHeld = await kmsSection().catch((error) => {
  console.error(error);
  return false;
});
console.log('\nTransaction events to a webhook endpoint');
const eventsHeld = await transactionEventsSection().catch((error) => {
  console.error(error);
  return false;
});
/** A section's targets, each printed above: 1 when all were met. */
const section = (name: string, met: boolean): Figure => ({
  name: `${name}: targets met`,
  value: met ? 1 : 0,
  unit: '',
  target: { op: '>=', value: 1 },
});
recordBench('tx', [
  ...figures,
  section('interval mining', held),
  section('Fireblocks', fireblocksHeld),
  section('AWS KMS', kmsHeld),
  section('transaction events', eventsHeld),
]);
process.exit(held && fireblocksHeld && kmsHeld && eventsHeld ? 0 : 1);
