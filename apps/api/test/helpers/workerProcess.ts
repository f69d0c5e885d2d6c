import { type ChildProcess, spawn } from 'node:child_process';
import { bundledEntry } from '@mountain/testkit/devBundle.js';
import { REPO_ROOT } from '#api/config/config.ts';

export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it has exited. */
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * Starts `main.ts --role worker` as its own process (as in production), and resolves once it runs.
 * `env` adds to the environment (DATABASE_URL, RPC_URL_1337, MASTER_KEY, …), over `WEBHOOK_ALLOW_PRIVATE_ADDRESSES=loopback`.
 */
export async function spawnWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...(await bundledEntry('apps/api/src/main.ts')), '--role', 'worker'], {
    cwd: REPO_ROOT,
    // Loopback webhooks turned on, as npm start does: the tests' receivers listen on 127.0.0.1.
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'loopback', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start within 60 s: ${stderr}`)), 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('mountain worker running')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}: ${stderr}`));
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    pid: child.pid as number,
    child,
    async stop() {
      if (gone()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
