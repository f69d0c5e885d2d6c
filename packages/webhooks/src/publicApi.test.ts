// Keeps the public API documented: every export has TSDoc with an @example and is described in the README.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { assertExportsDocumented, assertReadmeMentionsExports, runtimeExports } from '@mountain/testkit/publicApi.ts';
import * as sdk from './index.ts';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

test('index.ts lists exactly the runtime exports', () => {
  const values = runtimeExports(read);
  assert.deepEqual(Object.keys(sdk).sort(), values.sort());
  assert.ok(values.length >= 15);
});

test('every export has a TSDoc comment with an @example', () => {
  assertExportsDocumented(read);
});

test('the README mentions every export', () => {
  assertReadmeMentionsExports(read);
});
