// The console calls the API only through @mountain/public-api-client: every client method it calls is an operation
// of the OpenAPI document, so the console cannot drift from it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
const document = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json'), 'utf8'),
) as { paths: Record<string, Record<string, { operationId: string }>> };
const camel = (id: string) => id.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

test('every API call of the console is an operation of the OpenAPI document', () => {
  const operations = new Set(
    Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => camel(op.operationId))),
  );
  const called = new Set<string>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\b(?:client|MountainClient)\.(\w+)\(/g)) called.add(match[1] as string);
    assert.doesNotMatch(
      text,
      /\bfetch\(|XMLHttpRequest|\/public-api\/v3\/\w/,
      `${file} calls the API only through the client`,
    );
  }
  assert.ok(called.size >= 15, `found the calls (${[...called].join(', ')})`);
  assert.deepEqual(
    [...called].filter((method) => !operations.has(method)),
    [],
    'calls without an operation',
  );
});
