// Keeps the public API documented: every export has TSDoc with an @example and is described in the README.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as sdk from './index.ts';

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

test('index.ts lists exactly the runtime exports', () => {
  const values = publicExports()
    .filter(([, , typeOnly]) => !typeOnly)
    .map(([name]) => name);
  assert.deepEqual(Object.keys(sdk).sort(), values.sort());
  assert.ok(values.length >= 15);
});

test('every export has a TSDoc comment with an @example', () => {
  for (const [name, file] of publicExports()) {
    const source = read(file);
    const declaration = new RegExp(`export (?:async )?(?:function|class|interface|type|const) ${name}\\b`).exec(source);
    assert.ok(declaration, `${name} is declared in ${file}`);
    const before = source.slice(0, declaration.index);
    const doc = before.slice(before.lastIndexOf('/**'));
    assert.match(doc, /^\/\*\*[\s\S]*\*\/\s*$/, `${name} has a TSDoc comment right above it`);
    assert.match(doc, /@example/, `${name}'s TSDoc has an @example`);
  }
});

test('the README mentions every export', () => {
  const readme = read('../README.md');
  for (const [name] of publicExports()) assert.ok(readme.includes(`\`${name}`), `README.md mentions \`${name}\``);
});
