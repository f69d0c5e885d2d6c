import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface AnvilHandle {
  url: string;
  pid: number;
  /** Why anvil ended when nothing stopped it: its exit code or signal and the end of what it wrote to stderr (a
   * panic's message). Undefined while it runs, and after `stop()`. */
  died(): string | undefined;
  /** Resolves once anvil has ended, stopped or not. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

/** The most of anvil's stderr kept for `died()`. With `--silent` it writes there only when something goes wrong. */
const STDERR_TAIL = 4_000;

/**
 * The per-platform packages that `@foundry-rs/anvil` declares as optional dependencies, by Node's platform and
 * architecture. npm installs the one matching the machine, where the lock file has it.
 */
export const ANVIL_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

/** No anvil for this machine: the message says how to give `npm start` a chain instead. */
export class AnvilNotFound extends Error {
  override readonly name = 'AnvilNotFound';
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The anvil binary for this machine: the installed per-platform package's; else the one `@foundry-rs/anvil`'s own
 * install script downloads beside itself (where install scripts run); else an `anvil` on PATH (Foundry installed
 * with foundryup). Throws AnvilNotFound, naming RPC_URL_1337, when there is none.
 */
export function anvilBinary(
  machine: { platform: string; arch: string; path: string | undefined } = {
    platform: process.platform,
    arch: process.arch,
    path: process.env.PATH,
  },
): string {
  const require = createRequire(import.meta.url);
  const target = `${machine.platform}-${machine.arch}`;
  const resolve = (specifier: string) => {
    try {
      return require.resolve(specifier);
    } catch {
      return undefined;
    }
  };
  const platformPackage = ANVIL_PACKAGES[target] && resolve(`${ANVIL_PACKAGES[target]}/package.json`);
  const metaPackage = resolve('@foundry-rs/anvil/package.json');
  const candidates = [
    platformPackage && path.join(path.dirname(platformPackage), 'bin/anvil'),
    metaPackage && path.join(path.dirname(metaPackage), 'anvil'),
    // Not node_modules/.bin, which npm puts on PATH: its anvil is @foundry-rs/anvil's wrapper of the same binaries.
    ...(machine.path ?? '')
      .split(path.delimiter)
      .filter((dir) => dir && !dir.endsWith(path.join('node_modules', '.bin')))
      .map((dir) => path.join(dir, 'anvil')),
  ];
  const found = candidates.find((file): file is string => !!file && executable(file));
  if (found) return found;
  throw new AnvilNotFound(
    `No anvil for this machine (${target}): ${ANVIL_PACKAGES[target] ?? 'no @foundry-rs/anvil package'} is not ` +
      'installed, and there is no anvil on PATH. Either install Foundry (https://getfoundry.sh) so that anvil is ' +
      'on PATH, or run a chain with id 1337 and point npm start at it:\n' +
      '  anvil --chain-id 1337 --port 8545          # or any node whose chain id is 1337\n' +
      '  RPC_URL_1337=http://127.0.0.1:8545 npm start',
  );
}

/** Starts a local chain 1337 on loopback and resolves once it answers JSON-RPC. */
export async function startAnvil(options: {
  port: number;
  blockTime?: number;
  args?: string[];
  /** 1337 unless given: another id stands in for a live network in tests. */
  chainId?: number;
  /** In a process group of its own: a Ctrl-C in the terminal does not reach it, its starter stops it. */
  detached?: boolean;
}): Promise<AnvilHandle> {
  const args = [
    '--chain-id',
    String(options.chainId ?? 1337),
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--silent',
  ];
  if (options.blockTime) args.push('--block-time', String(options.blockTime));
  const detached = options.detached ?? false;
  // Its stderr is read here, unless it is to outlive this process (a pipe with no reader would fail its writes).
  const child: ChildProcess = spawn(anvilBinary(), [...args, ...(options.args ?? [])], {
    stdio: ['ignore', 'ignore', detached ? 'ignore' : 'pipe'],
    detached,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  // The pipe alone does not keep this process running: anvil is stopped by its starter, or killed on exit.
  (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
  const url = `http://127.0.0.1:${options.port}`;
  let stopping = false;
  let death: string | undefined;
  // 'close', not 'exit': what anvil wrote last (a panic) may arrive after it exited.
  const exited = new Promise<void>((resolve) =>
    child.once('close', (code, signal) => {
      if (!stopping) {
        const output = stderr.trim();
        death =
          `anvil on port ${options.port} (pid ${child.pid}) exited on its own, ` +
          `${signal ? `killed by ${signal}` : `with code ${code}`}` +
          (output ? `; its last output:\n${output}` : ', writing nothing to stderr');
        process.stderr.write(`${death}\n`);
      }
      resolve();
    }),
  );
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`anvil exited with code ${child.exitCode} (is port ${options.port} free?)`);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('anvil did not start within 15 s');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid as number,
    died: () => death,
    exited,
    async stop() {
      stopping = true;
      death = undefined;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
