import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface AnvilHandle {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Path of the anvil binary shipped in the @foundry-rs/anvil-linux-amd64 package. */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin/anvil');
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
  const child: ChildProcess = spawn(anvilBinary(), [...args, ...(options.args ?? [])], {
    stdio: 'ignore',
    detached: options.detached ?? false,
  });
  const url = `http://127.0.0.1:${options.port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
