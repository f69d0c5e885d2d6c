import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { REPO_ROOT } from './repoRoot.ts';

const ports = path.join(REPO_ROOT, 'packages/testkit/src/ports.ts');

/** A process that asks for `count` ports and holds them until `release` is called (its standard input closes). */
async function holder(count: number): Promise<{ got: number[]; release: () => Promise<void> }> {
  const child = spawn(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    `const { freePort } = await import(${JSON.stringify(ports)});
     const got = []; for (let i = 0; i < ${count}; i++) got.push(await freePort());
     console.log(JSON.stringify(got));
     process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`,
  ]);
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const exited = once(child, 'exit');
  return {
    got: JSON.parse(line),
    release: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

describe('freePort', () => {
  it('never hands two processes running at once the same port, nor one process a port twice', async () => {
    const holders = await Promise.all([holder(300), holder(300), holder(300)]);
    const all = holders.flatMap((h) => h.got);
    await Promise.all(holders.map((h) => h.release()));
    assert.equal(new Set(all).size, all.length);
  });

  it('hands out ports below the ephemeral range, which outgoing connections and listen(0) take from', async () => {
    const { got, release } = await holder(50);
    await release();
    for (const port of got) assert.ok(port >= 20_000 && port < 32_768, `port ${port}`);
  });

  it('gives its ports back when the process ends', async () => {
    const { got, release } = await holder(5);
    for (const port of got) assert.equal(existsSync(path.join(os.tmpdir(), 'mountain-ports', String(port))), true);
    await release();
    for (const port of got) assert.equal(existsSync(path.join(os.tmpdir(), 'mountain-ports', String(port))), false);
  });
});
