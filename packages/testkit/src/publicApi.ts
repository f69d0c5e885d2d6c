// The checks both SDK packages' publicApi tests make on their index.ts: every export documented with an example.
import assert from 'node:assert/strict';

/** Reads a file of the package by its path relative to `src/`, e.g. `./index.ts` or `../README.md`. */
export type ReadSource = (path: string) => string;

/** `[name, file, isTypeOnly]` for each export of index.ts. */
export function publicExports(read: ReadSource): [string, string, boolean][] {
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

/** The names index.ts exports as values (not types only). */
export function runtimeExports(read: ReadSource): string[] {
  return publicExports(read)
    .filter(([, , typeOnly]) => !typeOnly)
    .map(([name]) => name);
}

/** The TSDoc right above the first match of `declaration` in `source`, or undefined. */
export function docAbove(source: string, declaration: RegExp): string | undefined {
  const found = declaration.exec(source);
  if (!found) return undefined;
  const before = source.slice(0, found.index);
  return before.slice(before.lastIndexOf('/**'));
}

/** Asserts that every export of index.ts has a TSDoc comment with an @example right above its declaration. */
export function assertExportsDocumented(read: ReadSource): void {
  for (const [name, file] of publicExports(read)) {
    const doc = docAbove(
      read(file),
      new RegExp(`export (?:async )?(?:function|class|interface|type|const) ${name}\\b`),
    );
    assert.ok(doc !== undefined, `${name} is declared in ${file}`);
    assert.match(doc, /^\/\*\*[\s\S]*\*\/\s*$/, `${name} has a TSDoc comment right above it`);
    assert.match(doc, /@example/, `${name}'s TSDoc has an @example`);
  }
}

/** Asserts that the package's README mentions every export of index.ts as `` `name``. */
export function assertReadmeMentionsExports(read: ReadSource): void {
  const readme = read('../README.md');
  for (const [name] of publicExports(read)) assert.ok(readme.includes(`\`${name}`), `README.md mentions \`${name}\``);
}
