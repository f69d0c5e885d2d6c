import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { devBundle } from './devBundle.js';

// Entries written inside the repository, so that their bare imports resolve from its node_modules as the sources' do.
const DIR = path.join(import.meta.dirname, '..', 'node_modules', '.cache', `devBundle-test-${process.pid}`);

describe('development bundles', () => {
  before(() => mkdirSync(DIR, { recursive: true }));
  after(() => rmSync(DIR, { recursive: true, force: true }));

  const entry = (name: string, source: string) => {
    const file = path.join(DIR, `${name}.ts`);
    writeFileSync(file, source);
    return file;
  };

  it('load a vendored package from the vendor folder, one instance through each of its imports', async () => {
    const file = entry(
      'oneViem',
      `import { BaseError } from 'viem';
       import { toAccount } from 'viem/accounts';
       try { toAccount('0x12'); } catch (error) { console.log(JSON.stringify({ same: error instanceof BaseError })); }`,
    );
    const bundle = await devBundle(file, path.join(DIR, 'cache'), 'oneViem');
    const source = readFileSync(bundle, 'utf8');
    assert.doesNotMatch(source, /from\s*["']viem/, 'viem is not imported from node_modules');
    assert.match(source, /vendor-[0-9a-f]{16}\/viem__accounts\.mjs/);
    // viem/accounts throws viem's own error class: `instanceof` holds only if both imports are one viem.
    const printed = execFileSync(process.execPath, [bundle], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(printed), { same: true });
    // Another lock file means another vendor folder: the bundle is made again when it changes.
    const { inputs } = JSON.parse(readFileSync(path.join(DIR, 'cache', 'oneViem.inputs.json'), 'utf8'));
    assert.ok(path.join(import.meta.dirname, '../../../package-lock.json') in inputs, 'the lock file is an input');
  });

  it('refuse a subpath of a vendored package that the vendor does not answer', async () => {
    const file = entry('otherSubpath', `import { mainnet } from 'viem/chains';\nconsole.log(mainnet.id);`);
    await assert.rejects(
      devBundle(file, path.join(DIR, 'cache'), 'otherSubpath'),
      /viem\/chains is not in devBundle\.js's VENDORED list/,
    );
  });
});
