// The platform on a chain lab, for the interval-mining benchmark and the chaos run: a throwaway embedded
// PostgreSQL, a lab chain (interval mining, reorgs, fee spikes; packages/testkit/src/lab) with the Counter deployed,
// optionally a provider-like proxy in front of it, the API in this process (requests by `inject`, as the load comes
// from here) and a job worker in a child process (as `--role worker` runs: the API and the worker do not share one
// event loop), started and stopped at will. Everything listens on 127.0.0.1; `stop()` takes it all down, in reverse
// order, even after a failure.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type KmsSimulator, startKmsSimulator } from '@mountain/testkit/awsKms/startKmsSimulator.ts';
import { bundledEntry } from '@mountain/testkit/devBundle.js';
import {
  type FireblocksSimulator,
  startFireblocksSimulator,
} from '@mountain/testkit/fireblocks/startFireblocksSimulator.ts';
import { type LabChain, type LabChainOptions, startLabChain } from '@mountain/testkit/lab/chain.ts';
import {
  type ProviderProxy,
  type ProviderProxyOptions,
  startProviderProxy,
} from '@mountain/testkit/lab/providerProxy.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, deployCounter } from '@mountain/testkit/testContract.ts';
import type { FastifyInstance } from 'fastify';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import { REPO_ROOT } from '#api/config/config.ts';
import { createDb, type Db } from '#api/db/db.ts';
import { startEmbeddedPostgres } from '#api/db/embeddedPostgres.ts';
import { migrate } from '#api/db/migrate.ts';
import { API_PREFIX } from '#api/http/appDeps.ts';
import { createProject } from '#api/projects/projects.ts';
import type { TransactionSettings } from '#api/transactions/settings.ts';
import { createAwsKmsCustody } from '#api/wallets/awsKms/awsKmsCustody.ts';
import type { AwsKmsSettings } from '#api/wallets/awsKms/settings.ts';
import type { RemoteCustodians, WalletType } from '#api/wallets/custodians.ts';
import { createFireblocksCustody } from '#api/wallets/fireblocks/fireblocksCustody.ts';
import type { FireblocksSettings } from '#api/wallets/fireblocks/settings.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import type { LabWorkerOptions } from './labWorker.ts';

type Stop = () => Promise<unknown> | unknown;

/** A project with the Counter imported and `increment` activated. */
export interface LabProject {
  projectId: number;
  apiKey: string;
  functionId: number;
  /** Its testnet system wallet, which sends on 1337. */
  wallet: `0x${string}`;
  /** An account without code the project pays (native transfers through its activated receive()), once payee() made it. */
  payee?: { address: `0x${string}`; functionId: number };
}

/** One execute-transaction answer: 201 with the transaction's id, or the status and error code. */
export interface Execution {
  id?: string;
  status: number;
  code?: string;
  /** performance.now() when the answer came. */
  answeredAt: number;
}

export interface LabPlatform {
  chain: LabChain;
  /** The simulated Fireblocks workspace signing for the lab chain, when one was asked for. */
  fireblocks: FireblocksSimulator | undefined;
  /** The simulated AWS KMS the aws-kms projects sign with, when one was asked for. */
  kms: KmsSimulator | undefined;
  /** The proxy the platform talks to, when one was asked for (the first of `providers`). */
  provider: ProviderProxy | undefined;
  /** Every proxy the platform talks to (RPC_URL_1337 lists them all: several endpoints of one network). */
  providers: ProviderProxy[];
  db: Db;
  counter: `0x${string}`;
  /** JSON-RPC straight to the lab chain (the truth the checks compare with). */
  rpc<T>(method: string, params?: unknown[]): Promise<T>;
  /** A fresh project (so a fresh system wallet) with the Counter imported and `increment` activated. */
  project(name: string, walletType?: WalletType): Promise<LabProject>;
  /** add-system-wallets: `count` more testnet wallets in the project's pool; answers the pool's addresses. */
  addWallets(project: LabProject, count: number): Promise<`0x${string}`[]>;
  /**
   * Makes a fresh account without code the project's payee: imported with ABI `receive() external payable`, its
   * receive() activated with limits far above any run's spending; sets `project.payee`.
   */
  payee(project: LabProject): Promise<NonNullable<LabProject['payee']>>;
  /** One execution of `increment(1)` with a fresh idempotency key; with `value`, a transfer of that wei to the payee. */
  execute(project: LabProject, value?: bigint): Promise<Execution>;
  /** cancel-transaction of one of the project's transactions: its HTTP status, error code, and the status answered. */
  cancel(
    project: LabProject,
    transactionId: string,
  ): Promise<{ status: number; code?: string; transactionStatus?: string }>;
  /** speed-up-transaction of one of the project's transactions: its HTTP status and error code. */
  speedUp(
    project: LabProject,
    transactionId: string,
    feeMultiplier: number,
  ): Promise<{ status: number; code?: string }>;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  /** Stops everything started, in reverse order; safe to call twice. */
  stop(): Promise<void>;
}

export async function startLabPlatform(options: {
  name: string;
  chain: LabChainOptions;
  provider?: ProviderProxyOptions;
  /** How many proxies of `provider`'s options, each an endpoint of the network (1 unless given). */
  endpoints?: number;
  /** The worker's runners per lane over the defaults (WORKER_CONCURRENCY_<LANE>). */
  concurrency?: LabWorkerOptions['concurrency'];
  transactions: Partial<TransactionSettings>;
  /** A simulated Fireblocks workspace that signs for the lab chain (and reaches it directly, not by the proxy). */
  fireblocks?: boolean;
  /**
   * A simulated AWS KMS for aws-kms projects, answering each Sign `signLatencyMs` late (as KMS does), with
   * `signConcurrency` (AWS_KMS_SIGN_CONCURRENCY; 64 unless given) Sign requests in flight per wallet.
   */
  kms?: { signLatencyMs: number; signConcurrency?: number };
}): Promise<LabPlatform> {
  const stops: Stop[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await Promise.resolve(s()).catch(() => {});
  };
  try {
    const dir = path.join(REPO_ROOT, '.data', `${options.name}-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    // An interrupted run (the embedded server stops itself on SIGINT and SIGTERM, anvil is killed on exit) still
    // leaves no folder behind.
    const removeDir = () => rmSync(dir, { recursive: true, force: true });
    process.once('exit', removeDir);
    stops.push(() => {
      process.removeListener('exit', removeDir);
      removeDir();
    });
    const server = await startEmbeddedPostgres(path.join(dir, 'postgres'), await freePort());
    stops.push(() => server.stop());
    await server.ensureDatabase('lab');
    const databaseUrl = server.urlFor('lab');
    const db = createDb(databaseUrl, { max: 20 });
    stops.push(() => db.close());
    await migrate(db);
    const masterKey = randomBytes(32);
    const keys = await loadWalletKeys(db, masterKey);

    const chain = await startLabChain({ port: await freePort(), ...options.chain });
    stops.push(() => chain.stop());
    const counter = await deployCounter(chain.url);
    const providers: ProviderProxy[] = [];
    for (let i = 0; options.provider && i < (options.endpoints ?? 1); i++) {
      const proxy = await startProviderProxy(chain.url, { port: await freePort(), ...options.provider });
      providers.push(proxy);
      stops.push(() => proxy.close());
    }
    const provider = providers[0];
    const rpcUrls = { 1337: providers.length > 0 ? providers.map((proxy) => proxy.url).join(',') : chain.url };
    let fireblocks: FireblocksSimulator | undefined;
    let fireblocksSettings: FireblocksSettings | undefined;
    if (options.fireblocks) {
      // A workspace that allows parallel transactions per vault account and asset: one in flight at a time (the
      // default) moves a project about one transaction per block, far below a chaos project's share of the load.
      // COMPLETED once the chain calls the block finalized (head − 2 × slotsInAnEpoch), as a workspace's
      // confirmation threshold is set deeper than the network's reorgs: a transaction Fireblocks calls COMPLETED is
      // one it stops sending, and a deeper reorg would leave its nonce unfilled behind every later one.
      const sim = await startFireblocksSimulator({
        assets: { ETH_LOCAL: { rpcUrl: chain.url, chainId: 1337 } },
        parallelPerVaultAsset: true,
        confirmations: 2 * (options.chain.slotsInAnEpoch ?? 4) + 1,
      });
      fireblocks = sim;
      stops.push(() => sim.stop());
      const user = sim.createApiUser();
      fireblocksSettings = {
        apiKey: user.apiKey,
        secretKey: user.privateKeyPem,
        baseUrl: sim.url,
        assetIds: { 1337: 'ETH_LOCAL' },
        webhookPublicKey: undefined,
        deployment: options.name,
        maxRps: 200,
        pollIntervalMs: 500,
      };
    }
    let kms: KmsSimulator | undefined;
    let kmsSettings: AwsKmsSettings | undefined;
    if (options.kms) {
      const sim = await startKmsSimulator();
      kms = sim;
      stops.push(() => sim.stop());
      if (options.kms.signLatencyMs > 0) sim.faults.set({ latency: { ms: options.kms.signLatencyMs, action: 'Sign' } });
      kmsSettings = {
        region: sim.region,
        endpoint: sim.url,
        credentials: sim.createUser(),
        deployment: options.name,
        signConcurrency: options.kms.signConcurrency ?? 64,
      };
    }
    const custodians: RemoteCustodians = {
      ...(fireblocksSettings ? { fireblocks: createFireblocksCustody(fireblocksSettings, [1337]) } : {}),
      ...(kmsSettings ? { awsKms: createAwsKmsCustody(kmsSettings) } : {}),
    };
    const app = buildApp({
      db,
      chains: createChains(rpcUrls),
      tokenSigningKey: randomBytes(32),
      masterKey,
      bodyLimit: 65536,
      custodians,
    });
    await app.ready();
    stops.push(() => app.close());

    let worker: ChildProcess | undefined;
    // Interrupted: the worker goes at once, before the database it uses stops under it.
    const interrupted = () => worker?.kill('SIGKILL');
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, interrupted);
    stops.push(() => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeListener(signal, interrupted);
    });
    const stopWorker = async () => {
      const child = worker;
      worker = undefined;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    };
    stops.push(stopWorker);
    const workerOptions: LabWorkerOptions = {
      databaseUrl,
      masterKey: masterKey.toString('base64'),
      rpcUrls,
      transactions: options.transactions,
      ...(options.concurrency ? { concurrency: options.concurrency } : {}),
      ...(fireblocksSettings ? { fireblocks: fireblocksSettings } : {}),
      ...(kmsSettings ? { awsKms: kmsSettings } : {}),
    };
    return {
      chain,
      fireblocks,
      kms,
      provider,
      providers,
      db,
      counter,
      rpc: (method, params) => chain.rpc(method, params),
      async project(name, walletType) {
        const { project, apiKey } = await createProject(
          db,
          keys,
          { projectName: name, keyMode: 'test', ...(walletType ? { walletType } : {}) },
          custodians,
        );
        const contract = await call(app, apiKey, 'POST', '/contract/import-contract', {
          networkId: 1337,
          address: counter,
          formattedAbi: COUNTER_FORMATTED_ABI,
        });
        const activated = await call(app, apiKey, 'POST', '/contract/activate-contract-function', {
          contractId: contract.contract.id,
          formattedAbiFunction: 'function increment(uint256 amount)',
        });
        const detail = await call(app, apiKey, 'GET', '/project/get-project-detail');
        return {
          projectId: project.id,
          apiKey,
          functionId: activated.contractActivatedFunction.id,
          wallet: detail.data.mSystemWalletTestnet.address,
        };
      },
      async addWallets(project, count) {
        const { data } = await call(app, project.apiKey, 'POST', '/project/add-system-wallets', {
          networkType: 'testnet',
          count,
        });
        return (data.mSystemWallets as { address: `0x${string}`; networkType: string }[])
          .filter((wallet) => wallet.networkType === 'testnet')
          .map((wallet) => wallet.address);
      },
      async payee(project) {
        const address = privateKeyToAddress(generatePrivateKey());
        const contract = await call(app, project.apiKey, 'POST', '/contract/import-contract', {
          networkId: 1337,
          address,
          formattedAbi: ['receive() external payable'],
        });
        const activated = await call(app, project.apiKey, 'POST', '/contract/activate-contract-function', {
          contractId: contract.contract.id,
          formattedAbiFunction: 'receive() external payable',
          maxValuePerTransaction: (10n ** 18n).toString(),
          maxValuePerDay: (10n ** 21n).toString(),
        });
        project.payee = { address, functionId: activated.contractActivatedFunction.id };
        return project.payee;
      },
      async execute(project, value) {
        if (value !== undefined && !project.payee) throw new Error(`project ${project.projectId} has no payee`);
        const res = await app.inject({
          method: 'POST',
          url: `${API_PREFIX}/transaction/execute-transaction`,
          headers: { 'x-api-key': project.apiKey },
          payload:
            value !== undefined && project.payee
              ? {
                  contractActivatedFunctionId: project.payee.functionId,
                  functionArgs: [],
                  value: value.toString(),
                  idempotencyKey: randomUUID(),
                }
              : { contractActivatedFunctionId: project.functionId, functionArgs: ['1'], idempotencyKey: randomUUID() },
        });
        const answeredAt = performance.now();
        const body = res.json();
        return res.statusCode === 201
          ? { id: body.transaction.id as string, status: res.statusCode, answeredAt }
          : { status: res.statusCode, code: body?.code, answeredAt };
      },
      async speedUp(project, transactionId, feeMultiplier) {
        const res = await app.inject({
          method: 'POST',
          url: `${API_PREFIX}/transaction/speed-up-transaction`,
          headers: { 'x-api-key': project.apiKey },
          payload: { transactionId, feeMultiplier },
        });
        return { status: res.statusCode, ...(res.statusCode === 200 ? {} : { code: res.json()?.code }) };
      },
      async cancel(project, transactionId) {
        const res = await app.inject({
          method: 'POST',
          url: `${API_PREFIX}/transaction/cancel-transaction`,
          headers: { 'x-api-key': project.apiKey },
          payload: { transactionId },
        });
        const body = res.json();
        return res.statusCode === 200
          ? { status: res.statusCode, transactionStatus: body?.transaction?.status }
          : { status: res.statusCode, code: body?.code };
      },
      async startWorker() {
        if (worker) return;
        const bundle = await bundledEntry(path.join(path.dirname(fileURLToPath(import.meta.url)), 'labWorker.ts'));
        const child = fork(bundle.at(-1) as string, {
          execArgv: bundle.slice(0, -1),
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        worker = child;
        await new Promise<void>((resolve, reject) => {
          child.once('message', () => resolve());
          child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it was ready`)));
          child.send(workerOptions);
        });
      },
      stopWorker,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One API call by `inject`; throws unless it answered 2xx. */
async function call(app: FastifyInstance, apiKey: string, method: 'GET' | 'POST', op: string, body?: object) {
  const res = await app.inject({
    method,
    url: `${API_PREFIX}${op}`,
    headers: { 'x-api-key': apiKey },
    ...(body ? { payload: body } : {}),
  });
  if (res.statusCode >= 300) throw new Error(`${op}: HTTP ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Transactions of a project by status. */
export async function statusCounts(db: Db, projectIds: number[]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM transactions WHERE project_id = ANY($1) GROUP BY status ORDER BY status`,
    [projectIds],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Polls `check` every 250 ms until it answers true or `timeoutMs` passes; answers whether it did. */
export async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}
