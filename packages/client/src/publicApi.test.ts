// Keeps the public API documented: every export and every client method has TSDoc with an @example, and the
// README mentions each of them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as sdk from './index.ts';
import { OPERATIONS } from './operations.ts';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** `[name, file, isTypeOnly]` for each export of index.ts. */
function publicExports(): [string, string, boolean][] {
  const result: [string, string, boolean][] = [];
  for (const match of read('./index.ts').matchAll(/export (type )?\{([^}]*)\} from '\.\/(\w+)\.ts'/g)) {
    const [, typeOnlyList = '', names = '', file = ''] = match;
    for (const entry of names.split(',').map((name) => name.trim())) {
      if (entry === '') continue;
      const typeOnly = typeOnlyList !== '' || entry.startsWith('type ');
      result.push([entry.replace(/^type /, ''), `./${file}.ts`, typeOnly]);
    }
  }
  return result;
}

/** The TSDoc right above the first match of `declaration` in `source`, or undefined. */
function docAbove(source: string, declaration: RegExp): string | undefined {
  const found = declaration.exec(source);
  if (!found) return undefined;
  const before = source.slice(0, found.index);
  return before.slice(before.lastIndexOf('/**'));
}

const METHODS = [...Object.keys(OPERATIONS), 'iterateTransactions', 'waitForTransaction'];

test('index.ts lists exactly the runtime exports', () => {
  const values = publicExports()
    .filter(([, , typeOnly]) => !typeOnly)
    .map(([name]) => name);
  assert.deepEqual(Object.keys(sdk).sort(), values.sort());
});

test('every export has a TSDoc comment with an @example', () => {
  for (const [name, file] of publicExports()) {
    const doc = docAbove(
      read(file),
      new RegExp(`export (?:async )?(?:function|class|interface|type|const) ${name}\\b`),
    );
    assert.ok(doc !== undefined, `${name} is declared in ${file}`);
    assert.match(doc, /^\/\*\*[\s\S]*\*\/\s*$/, `${name} has a TSDoc comment right above it`);
    assert.match(doc, /@example/, `${name}'s TSDoc has an @example`);
  }
});

test('every client method has a TSDoc comment with an @example', () => {
  const source = read('./MountainClient.ts');
  for (const method of METHODS) {
    const doc = docAbove(source, new RegExp(`\\n  ${method}\\(`));
    assert.ok(doc !== undefined, `MountainClient.${method} is declared`);
    assert.match(doc, /^\/\*\*[\s\S]*@example[\s\S]*\*\/\s*$/, `MountainClient.${method} has TSDoc with an @example`);
  }
});

test('the README mentions every export and every method', () => {
  const readme = read('../README.md');
  for (const [name] of publicExports()) assert.ok(readme.includes(`\`${name}`), `README.md mentions \`${name}\``);
  for (const method of METHODS) assert.ok(readme.includes(`${method}(`), `README.md documents ${method}()`);
});

test('the package has no runtime dependencies', () => {
  const manifest = JSON.parse(read('../package.json')) as Record<string, unknown>;
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    assert.equal(manifest[field], undefined, `package.json has no ${field}`);
  }
});
