import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ANVIL_PACKAGES, AnvilNotFound, anvilBinary } from './anvil.ts';

describe('anvilBinary', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'anvil-path-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('knows the per-platform packages exactly as @foundry-rs/anvil declares them', () => {
    const manifest = createRequire(import.meta.url).resolve('@foundry-rs/anvil/package.json');
    const declared = Object.keys(JSON.parse(readFileSync(manifest, 'utf8')).optionalDependencies).sort();
    assert.deepEqual(Object.values(ANVIL_PACKAGES).sort(), declared);
  });

  const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
  it("on Linux x64, the installed per-platform package's binary", { skip: !linuxX64 && 'not Linux x64' }, () => {
    const binary = anvilBinary({ platform: 'linux', arch: 'x64', path: '' });
    assert.match(binary, /node_modules\/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
  });

  it('where the per-platform package is not installed, an anvil on PATH', () => {
    const onPath = path.join(dir, 'anvil');
    writeFileSync(onPath, '#!/bin/sh\n');
    chmodSync(onPath, 0o755);
    assert.equal(
      anvilBinary({ platform: 'darwin', arch: 'arm64', path: `/nonexistent${path.delimiter}${dir}` }),
      onPath,
    );
  });

  it("skips npm's node_modules/.bin, whose anvil is @foundry-rs/anvil's wrapper of the missing package", () => {
    const bin = path.join(dir, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'anvil'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'anvil'), 0o755);
    assert.throws(() => anvilBinary({ platform: 'darwin', arch: 'arm64', path: bin }), AnvilNotFound);
  });

  it('where there is none, says how to point RPC_URL_1337 at a chain', () => {
    assert.throws(
      () => anvilBinary({ platform: 'darwin', arch: 'arm64', path: '/nonexistent' }),
      (error: unknown) =>
        error instanceof AnvilNotFound &&
        error.message.includes('No anvil for this machine (darwin-arm64): @foundry-rs/anvil-darwin-arm64') &&
        error.message.includes('RPC_URL_1337=http://127.0.0.1:8545 npm start'),
    );
    assert.throws(
      () => anvilBinary({ platform: 'freebsd', arch: 'x64', path: '' }),
      /No anvil for this machine \(freebsd-x64\): no @foundry-rs\/anvil package/,
    );
  });
});
