// The published form: `tsc -p tsconfig.build.json` emits ESM that plain Node runs (no TypeScript loader) with a
// .d.ts beside each module, and leaves tests and test helpers out.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as source from './index.ts';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = mkdtempSync(path.join(tmpdir(), 'mountain-client-build-'));
after(() => rmSync(outDir, { recursive: true, force: true }));

test('the build emits runnable ESM and declarations with the same exports as the source', async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: packageDir });

  const files = readdirSync(outDir, { recursive: true, encoding: 'utf8' });
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    assert.ok(files.includes(file.replace(/\.js$/, '.d.ts')), `${file} has declarations`);
  }
  assert.ok(existsSync(path.join(outDir, 'generated', 'schema.d.ts')));
  assert.deepEqual(
    files.filter((f) => /\.test\.|testing/.test(f)),
    [],
    'no tests or test helpers are published',
  );

  // A child process without tsx: what a user of the published package runs.
  const script = `const m = await import(${JSON.stringify(path.join(outDir, 'index.js'))});
    const c = new m.MountainClient({ apiKey: 'k', fetch: async () => new Response('{"contracts":[]}') });
    console.log(JSON.stringify({ exports: Object.keys(m).sort(), answer: await c.getContracts() }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  assert.deepEqual(JSON.parse(stdout), { exports: Object.keys(source).sort(), answer: { contracts: [] } });
});
