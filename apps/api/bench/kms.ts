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
// Each section also prints the limit its target meets on this machine: every core's CPU time is counted (all
// processes: anvil, PostgreSQL, the worker, the simulator; by process on Linux) while the ceiling signs and while each
// wallet drains. An aws-kms transaction costs at least the from-mnemonic wallet's CPU per transaction plus the CPU of
// one signature through the SDK and the simulator, and the cores give at most cores ÷ that many per second. By
// process: in 0, this process is the SDK's client and the other node process the simulator; in 1, this process holds
// the API and the simulator and the other the worker; in 2, this process holds the API and the worker.
import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
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
import type { WalletType } from '#api/wallets/custodians.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { acceptMany, settle } from '../scripts/lib/labLoad.ts';
import { type LabPlatform, type LabProject, startLabPlatform } from '../scripts/lib/labPlatform.ts';
import { percentile } from '../scripts/lib/percentile.ts';
import { type Stop, startBenchDatabase } from './benchDatabase.ts';
import { measuredCpu, mostPerSecond, perUnitByProcess } from './machineCpu.ts';

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
  const { rate: ceiling, machineMs, byProcess } = await signingCeiling();
  console.log(
    `  0. ceiling of this machine: ${ceiling.toFixed(0)} transactions/s signed through the SDK and the simulator (${CEILING_SIGNATURES} at once, nothing else of this bench running); machine CPU per signature ${machineMs.toFixed(2)} ms (${byProcess}: the SDK's client, and the simulator)`,
  );
  const fill = await intervalFill(ceiling, machineMs);
  const rates = await automineRates(ceiling, machineMs);
  return fill >= 0.95 && rates >= 0.8;
}

/**
 * The limit of a section's target on this machine: `needed` aws-kms tx/s against the most the cores allow, an
 * aws-kms transaction costing at least the from-mnemonic wallet's machine CPU per transaction plus one signature's
 * (`signatureMs`, from the ceiling). An estimate: both costs are measured at other moments of a shared machine, and a
 * run can land somewhat above it.
 */
function cpuLimit(needed: number, mnemonicMsPerTx: number, signatureMs: number, kmsMsPerTx: number): string {
  const cores = cpus().length;
  const most = mostPerSecond(mnemonicMsPerTx + signatureMs);
  return `the target needs ${needed.toFixed(0)} aws-kms tx/s; ${cores} cores give about ${most.toFixed(0)} at most (${mnemonicMsPerTx.toFixed(2)} ms of machine CPU per from-mnemonic transaction + ${signatureMs.toFixed(2)} per signature)${most < needed ? ': out of reach on this machine' : ''}, and ${mostPerSecond(kmsMsPerTx).toFixed(0)} at the CPU per transaction the aws-kms wallet used`;
}

const ofCeiling = (rate: number, ceiling: number) => `${((rate / ceiling) * 100).toFixed(0)}% of the ceiling`;

/**
 * 0: transactions/s that one aws-kms account signs, the simulator in its own process answering each Sign
 * LATENCY_MS late: the SDK's client, DER to an Ethereum signature and serialisation here, SigV4 checks and ECDSA there.
 */
async function signingCeiling(): Promise<{ rate: number; machineMs: number; byProcess: string }> {
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
    // A first round warms the SDK's client, the simulator and the JIT up: only the second is measured.
    await Promise.all(Array.from({ length: CEILING_SIGNATURES }, (_, i) => signEip1559(account, 1337, call(i))));
    const started = performance.now();
    const cpu = await measuredCpu(() =>
      Promise.all(Array.from({ length: CEILING_SIGNATURES }, (_, i) => signEip1559(account, 1337, call(i)))),
    );
    return {
      rate: CEILING_SIGNATURES / ((performance.now() - started) / 1000),
      machineMs: cpu.busyMs / CEILING_SIGNATURES,
      byProcess: perUnitByProcess(cpu.byProcess, CEILING_SIGNATURES),
    };
  } finally {
    await sim.stop();
  }
}

/** 1: the KMS wallet's median block fill over the from-mnemonic wallet's. */
async function intervalFill(ceiling: number, signatureMs: number): Promise<number> {
  const platform = await startLabPlatform({
    name: 'bench-kms',
    chain: { blockTimeSeconds: 1, gasLimit: GAS_LIMIT, slotsInAnEpoch: 4 },
    transactions: { maxInFlight: { 1337: 2_000 }, finalityPollMs: 500 },
    kms: { signLatencyMs: LATENCY_MS, signConcurrency: SIGN_CONCURRENCY },
  });
  try {
    await platform.startWorker();
    const fills: Partial<Record<WalletType, Fill>> = {};
    for (const walletType of ['from-mnemonic', 'aws-kms'] as const) {
      const project = await platform.project(`Fill ${walletType}`, walletType);
      fills[walletType] = await medianFill(platform, project);
    }
    const mnemonic = fills['from-mnemonic'] as Fill;
    const kms = fills['aws-kms'] as Fill;
    const ratio = kms.share / mnemonic.share;
    console.log(
      `  1. interval blocks (1 s, ${GAS_LIMIT.toLocaleString('en-US')} gas), a backlog of ${BLOCKS} blocks' worth each: median block gas used ${pct(mnemonic.share)} from-mnemonic, ${pct(kms.share)} aws-kms; ratio ${ratio.toFixed(3)} (target ≥ 0.95) ${ratio >= 0.95 ? 'PASS' : 'short'}; aws-kms ${kms.perBlock.toFixed(0)} tx per 1 s block, ${ofCeiling(kms.perBlock, ceiling)}`,
    );
    console.log(
      `     machine CPU per transaction while draining: from-mnemonic ${mnemonic.msPerTx.toFixed(2)} ms (${mnemonic.byProcess}; cores ${pct(mnemonic.busyShare)} busy), aws-kms ${kms.msPerTx.toFixed(2)} (${kms.byProcess}; ${pct(kms.busyShare)}); ${cpuLimit(0.95 * mnemonic.perBlock, mnemonic.msPerTx, signatureMs, kms.msPerTx)}`,
    );
    return ratio;
  } finally {
    await platform.stop();
  }
}

/** A wallet's drain on interval blocks. */
interface Fill {
  /** The median share of the gas limit its transactions use per block. */
  share: number;
  /** The median count of its transactions per block. */
  perBlock: number;
  /** The machine's CPU (all processes) per transaction while the backlog drained, in ms. */
  msPerTx: number;
  /** The share of every core's time busy meanwhile. */
  busyShare: number;
  /** That CPU per transaction by process (this one: the API and the simulator; the other node process: the worker). */
  byProcess: string;
}

async function medianFill(platform: LabPlatform, project: LabProject): Promise<Fill> {
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
  const { busyMs, busyShare, byProcess } = await measuredCpu(async () => {
    await held.release();
    await settle(platform, project, ids, 180_000);
  });
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
  const cpu = { msPerTx: busyMs / ids.length, busyShare, byProcess: perUnitByProcess(byProcess, ids.length) };
  return shares.length > 0
    ? { share: percentile(shares, 50), perBlock: percentile(counts, 50), ...cpu }
    : { share: 0, perBlock: 0, ...cpu };
}

/** 2: the KMS wallet's tx/s on automine over the from-mnemonic wallet's. */
async function automineRates(ceiling: number, signatureMs: number): Promise<number> {
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
    const cpu: Record<string, { msPerTx: number; byProcess: string }> = {};
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
      const { busyMs, byProcess } = await measuredCpu(async () => {
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
      });
      rates[walletType] = ROWS / ((performance.now() - started) / 1000);
      cpu[walletType] = { msPerTx: busyMs / ROWS, byProcess: perUnitByProcess(byProcess, ROWS) };
      stop.abort();
      await worker.stop();
    }
    const mnemonic = rates['from-mnemonic'] as number;
    const kms = rates['aws-kms'] as number;
    const ratio = kms / mnemonic;
    console.log(
      `  2. automine, ${ROWS} accepted then drained per wallet: ${mnemonic.toFixed(0)} tx/s from-mnemonic, ${kms.toFixed(0)} tx/s aws-kms (${(await sim.succeeded()).Sign ?? 0} signatures; ${ofCeiling(kms, ceiling)}); ratio ${ratio.toFixed(2)} (target ≥ 0.8) ${ratio >= 0.8 ? 'PASS' : 'short'}`,
    );
    const [m, k] = [cpu['from-mnemonic'], cpu['aws-kms']] as { msPerTx: number; byProcess: string }[];
    console.log(
      `     machine CPU per transaction while draining: from-mnemonic ${m?.msPerTx.toFixed(2)} ms (${m?.byProcess}), aws-kms ${k?.msPerTx.toFixed(2)} (${k?.byProcess}); ${cpuLimit(0.8 * mnemonic, m?.msPerTx ?? 0, signatureMs, k?.msPerTx ?? 0)}`,
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
