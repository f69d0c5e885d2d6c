// bench:tx's AWS KMS section: the same workload through a from-mnemonic wallet and an aws-kms wallet in the same
// run, the KMS simulator (packages/testkit/src/awsKms) answering each Sign BENCH_KMS_LATENCY_MS (30) late, as KMS
// answers in tens of milliseconds:
//   1. interval blocks (a lab chain, 1 s blocks, 30,000,000 gas, the worker in its own process): per wallet, a
//      backlog of BENCH_KMS_BLOCKS (6) blocks' worth accepted while this process holds the wallet's send lock, then
//      drained; the median share of each block's gas limit its transactions use (first and last blocks excluded);
//      target: the KMS wallet fills ≥ 95% of what the from-mnemonic wallet fills;
//   2. automine (anvil, the worker in this process, the simulator in its own): per wallet, BENCH_KMS_ROWS (400)
//      accepted with no worker running, then drained to `succeeded`; target: the KMS wallet reaches ≥ 0.8 of the
//      from-mnemonic wallet's tx/s.
// Both sign with BENCH_KMS_SIGN_CONCURRENCY (64) Sign requests in flight per wallet (AWS_KMS_SIGN_CONCURRENCY: a
// deployment sending this fast raises it, and its account's ECC request quota, from their defaults).
// First, the ceiling of this machine: how many transactions per second the SDK's client (in this process) gets
// signed by the simulator (in its own) with nothing else of the bench running, and the client's CPU per signature:
// the sender, whose process also does everything else a transaction needs, cannot sign faster than that, and the
// KMS wallet's rates are printed against it as well.
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { startKmsSimulatorProcess } from '@mountain/testkit/awsKms/simulatorProcess.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, deployCounter } from '@mountain/testkit/testContract.ts';
import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import { tryAdvisoryLock } from '#api/jobs/advisoryLock.ts';
import { createProject } from '#api/projects/projects.ts';
import { sendLock } from '#api/transactions/jobs.ts';
import { signEip1559 } from '#api/transactions/signing.ts';
import { createAwsKmsCustody } from '#api/wallets/awsKms/awsKmsCustody.ts';
import { createSignerProvider, type WalletType } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { acceptMany, settle } from '../scripts/lib/labLoad.ts';
import { type LabPlatform, type LabProject, percentile, startLabPlatform } from '../scripts/lib/labPlatform.ts';
import { type Stop, startBenchDatabase } from './benchDatabase.ts';

const LATENCY_MS = Number(process.env.BENCH_KMS_LATENCY_MS ?? 30);
const BLOCKS = Number(process.env.BENCH_KMS_BLOCKS ?? 6);
const ROWS = Number(process.env.BENCH_KMS_ROWS ?? 400);
const SIGN_CONCURRENCY = Number(process.env.BENCH_KMS_SIGN_CONCURRENCY ?? 64);
const CEILING_SIGNATURES = Number(process.env.BENCH_KMS_CEILING_SIGNATURES ?? 3_000);
const GAS_LIMIT = 30_000_000;

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

/** Runs the section; answers whether both targets held. */
export async function kmsSection(): Promise<boolean> {
  console.log(
    `\nAWS KMS (simulated, every Sign answered ${LATENCY_MS} ms late, ${SIGN_CONCURRENCY} in flight per wallet) against from-mnemonic, same run`,
  );
  const { rate: ceiling, cpuMs } = await signingCeiling();
  console.log(
    `  0. ceiling of this machine: ${ceiling.toFixed(0)} transactions/s signed through the SDK and the simulator (${CEILING_SIGNATURES} at once, nothing else of this bench running; ${cpuMs.toFixed(2)} ms of the signing process's CPU per signature)`,
  );
  const fill = await intervalFill(ceiling);
  const rates = await automineRates(ceiling);
  return fill >= 0.95 && rates >= 0.8;
}

const ofCeiling = (rate: number, ceiling: number) => `${((rate / ceiling) * 100).toFixed(0)}% of the ceiling`;

/**
 * 0: transactions/s that one aws-kms account signs, the simulator in its own process answering each Sign
 * LATENCY_MS late: the SDK's client, DER to an Ethereum signature and serialisation here, SigV4 checks and ECDSA there.
 */
async function signingCeiling(): Promise<{ rate: number; cpuMs: number }> {
  const sim = await startKmsSimulatorProcess({ faults: { latency: { ms: LATENCY_MS, action: 'Sign' } } });
  try {
    const custody = createAwsKmsCustody({
      region: sim.region,
      endpoint: sim.url,
      credentials: sim.credentials,
      deployment: 'bench',
      signConcurrency: SIGN_CONCURRENCY,
    });
    const key = await custody.provision(custody.aliasName('shared', 'testnet'), {}, undefined, async () => {});
    const account = custody.account({ id: 1, address: key.address, keyArn: key.arn });
    const call = (nonce: number) => ({
      to: key.address,
      data: '0xd09de08a' as const,
      nonce,
      gas: 50_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    await Promise.all(Array.from({ length: SIGN_CONCURRENCY }, (_, i) => signEip1559(account, 1337, call(i))));
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(Array.from({ length: CEILING_SIGNATURES }, (_, i) => signEip1559(account, 1337, call(i))));
    const used = process.cpuUsage(cpu);
    return {
      rate: CEILING_SIGNATURES / ((performance.now() - started) / 1000),
      cpuMs: (used.user + used.system) / 1000 / CEILING_SIGNATURES,
    };
  } finally {
    await sim.stop();
  }
}

/** 1: the KMS wallet's median block fill over the from-mnemonic wallet's. */
async function intervalFill(ceiling: number): Promise<number> {
  const platform = await startLabPlatform({
    name: 'bench-kms',
    chain: { blockTimeSeconds: 1, gasLimit: GAS_LIMIT, slotsInAnEpoch: 4 },
    transactions: { maxInFlight: { 1337: 2_000 }, finalityPollMs: 500 },
    kms: { signLatencyMs: LATENCY_MS, signConcurrency: SIGN_CONCURRENCY },
  });
  try {
    await platform.startWorker();
    const shares: Record<string, number> = {};
    let kmsRate = 0;
    for (const walletType of ['from-mnemonic', 'aws-kms'] as const) {
      const project = await platform.project(`Fill ${walletType}`, walletType);
      const fill = await medianFill(platform, project);
      shares[walletType] = fill.share;
      kmsRate = fill.perBlock;
    }
    const mnemonic = shares['from-mnemonic'] as number;
    const kms = shares['aws-kms'] as number;
    const ratio = kms / mnemonic;
    console.log(
      `  1. interval blocks (1 s, ${GAS_LIMIT.toLocaleString('en-US')} gas), a backlog of ${BLOCKS} blocks' worth each: median block gas used ${pct(mnemonic)} from-mnemonic, ${pct(kms)} aws-kms; ratio ${ratio.toFixed(3)} (target ≥ 0.95) ${ratio >= 0.95 ? 'PASS' : 'short'}; aws-kms ${kmsRate.toFixed(0)} tx per 1 s block, ${ofCeiling(kmsRate, ceiling)}`,
    );
    return ratio;
  } finally {
    await platform.stop();
  }
}

/** The median share of the gas limit the project's transactions use per block, and the median count per block. */
async function medianFill(platform: LabPlatform, project: LabProject): Promise<{ share: number; perBlock: number }> {
  const { db } = platform;
  // A warm-up: the counter's slot written from zero, the wallet's nonce and the signer's key cached.
  await settle(platform, project, await acceptMany(platform, project, 50), 60_000);
  const { rows: warm } = await db.query<{ gasUsed: string; walletId: number }>(
    `SELECT gas_used::text AS "gasUsed", system_wallet_id AS "walletId" FROM transactions
      WHERE project_id = $1 ORDER BY nonce DESC LIMIT 1`,
    [project.projectId],
  );
  const backlog = BLOCKS * Math.floor(GAS_LIMIT / Number(warm[0]?.gasUsed));
  const held = await tryAdvisoryLock(db, sendLock({ walletId: Number(warm[0]?.walletId), networkId: 1337 }));
  if (!held) throw new Error("could not hold the wallet's send lock");
  const ids = await acceptMany(platform, project, backlog);
  await held.release();
  await settle(platform, project, ids, 180_000);
  const { rows } = await db.query<{ block: number; gas: string; n: number }>(
    `SELECT block_number::int AS block, sum(gas_used)::text AS gas, count(*)::int AS n FROM transactions
      WHERE id = ANY($1::uuid[]) GROUP BY block_number ORDER BY block_number`,
    [ids],
  );
  const byBlock = new Map(rows.map((r) => [r.block, r]));
  const first = rows[0]?.block ?? 0;
  const last = rows.at(-1)?.block ?? 0;
  const shares: number[] = [];
  const counts: number[] = [];
  for (let b = first + 1; b < last; b++) {
    shares.push(Number(byBlock.get(b)?.gas ?? 0) / GAS_LIMIT);
    counts.push(byBlock.get(b)?.n ?? 0);
  }
  return shares.length > 0
    ? { share: percentile(shares, 50), perBlock: percentile(counts, 50) }
    : { share: 0, perBlock: 0 };
}

/** 2: the KMS wallet's tx/s on automine over the from-mnemonic wallet's. */
async function automineRates(ceiling: number): Promise<number> {
  const stops: Stop[] = [];
  try {
    const anvil = await startAnvil({ port: await freePort() });
    stops.push(() => anvil.stop());
    const sim = await startKmsSimulatorProcess({ faults: { latency: { ms: LATENCY_MS, action: 'Sign' } } });
    stops.push(() => sim.stop());
    const custodians = {
      awsKms: createAwsKmsCustody({
        region: sim.region,
        endpoint: sim.url,
        credentials: sim.credentials,
        deployment: 'bench',
        signConcurrency: SIGN_CONCURRENCY,
      }),
    };
    const { db, masterKey, keys } = await startBenchDatabase('kms', stops);
    const counter = await deployCounter(anvil.url);
    const chains = createChains({ 1337: anvil.url });
    const app = buildApp({ db, chains, tokenSigningKey: randomBytes(32), masterKey, bodyLimit: 65536, custodians });
    await app.ready();
    stops.push(() => app.close());
    const rates: Record<string, number> = {};
    for (const walletType of ['from-mnemonic', 'aws-kms'] as WalletType[]) {
      const { project, apiKey } = await createProject(
        db,
        keys,
        { projectName: `Automine ${walletType}`, keyMode: 'test', walletType },
        custodians,
      );
      const call = async (url: string, body: object) =>
        (
          await app.inject({
            method: 'POST',
            url: `/public-api/v3${url}`,
            headers: { 'x-api-key': apiKey },
            payload: body,
          })
        ).json();
      const { contract } = await call('/contract/import-contract', {
        networkId: 1337,
        address: counter,
        formattedAbi: COUNTER_FORMATTED_ABI,
      });
      const { contractActivatedFunction } = await call('/contract/activate-contract-function', {
        contractId: contract.id,
        formattedAbiFunction: 'function increment(uint256 amount)',
      });
      for (let i = 0; i < ROWS; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, ROWS - i) }, () =>
            call('/transaction/execute-transaction', {
              contractActivatedFunctionId: contractActivatedFunction.id,
              functionArgs: ['1'],
              idempotencyKey: randomUUID(),
            }),
          ),
        );
      }
      const stop = new AbortController();
      const worker = createWorker({
        deps: { db, chains, signers: createSignerProvider(keys, custodians), masterKey, signal: stop.signal },
      });
      const started = performance.now();
      await worker.start();
      const deadline = Date.now() + 300_000;
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM transactions WHERE project_id = $1 AND status <> 'succeeded'`,
          [project.id],
        );
        if (rows[0]?.n === 0) break;
        if (Date.now() > deadline) throw new Error(`${walletType}: not every transaction succeeded in 300 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      rates[walletType] = ROWS / ((performance.now() - started) / 1000);
      stop.abort();
      await worker.stop();
    }
    const mnemonic = rates['from-mnemonic'] as number;
    const kms = rates['aws-kms'] as number;
    const ratio = kms / mnemonic;
    console.log(
      `  2. automine, ${ROWS} accepted then drained per wallet: ${mnemonic.toFixed(0)} tx/s from-mnemonic, ${kms.toFixed(0)} tx/s aws-kms (${(await sim.succeeded()).Sign ?? 0} signatures; ${ofCeiling(kms, ceiling)}); ratio ${ratio.toFixed(2)} (target ≥ 0.8) ${ratio >= 0.8 ? 'PASS' : 'short'}`,
    );
    return ratio;
  } finally {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => {});
  }
}

// Alone: node --import tsx bench/kms.ts
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const deadline = setTimeout(() => {
    console.error('the KMS section did not finish within 15 minutes');
    process.exit(1);
  }, 900_000);
  deadline.unref();
  const ok = await kmsSection().catch((error) => {
    console.error(error);
    return false;
  });
  process.exit(ok ? 0 : 1);
}
