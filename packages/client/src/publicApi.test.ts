// Keeps the public API documented: every export and every client method has TSDoc with an @example, and the
// README mentions each of them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  assertExportsDocumented,
  assertReadmeMentionsExports,
  docAbove,
  runtimeExports,
} from '@mountain/testkit/publicApi.ts';
import * as sdk from './index.ts';
import { OPERATIONS } from './operations.ts';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

const METHODS = [...Object.keys(OPERATIONS), 'iterateTransactions', 'waitForTransaction'];

test('index.ts lists exactly the runtime exports', () => {
  assert.deepEqual(Object.keys(sdk).sort(), runtimeExports(read).sort());
});

test('every export has a TSDoc comment with an @example', () => {
  assertExportsDocumented(read);
});

test('every client method has a TSDoc comment with an @example', () => {
  const source = read('./MountainClient.ts');
  for (const method of METHODS) {
    const doc = docAbove(source, new RegExp(`\\n  (?:static )?${method}\\(`));
    assert.ok(doc !== undefined, `MountainClient.${method} is declared`);
    assert.match(doc, /^\/\*\*[\s\S]*@example[\s\S]*\*\/\s*$/, `MountainClient.${method} has TSDoc with an @example`);
  }
});

test('the README mentions every export and every method', () => {
  assertReadmeMentionsExports(read);
  const readme = read('../README.md');
  for (const method of METHODS) assert.ok(readme.includes(`${method}(`), `README.md documents ${method}()`);
});

test('the package has no runtime dependencies', () => {
  const manifest = JSON.parse(read('../package.json')) as Record<string, unknown>;
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    assert.equal(manifest[field], undefined, `package.json has no ${field}`);
  }
});
