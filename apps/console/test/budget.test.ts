// The first load's JavaScript (the entry and what index.html preloads), brotli-compressed as the API sends it, stays
// within 150 KB; each area's code is its own chunk, loaded when the area is first opened.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { brotliCompressSync, constants } from 'node:zlib';
import { CONSOLE_DIST } from './helpers/platform.ts';

const BUDGET = 150 * 1024;
const brotli = (file: string) =>
  brotliCompressSync(readFileSync(path.join(CONSOLE_DIST, file)), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
  }).length;

test(`the first load's JavaScript is at most ${BUDGET / 1024} KB compressed, and the areas are chunks of their own`, () => {
  const html = readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
  const firstLoad = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  assert.ok(firstLoad.length > 0, 'index.html loads a script');
  const bytes = firstLoad.reduce((sum, file) => sum + brotli(file), 0);
  assert.ok(bytes <= BUDGET, `first load: ${bytes} bytes (${firstLoad.join(', ')})`);
  const chunks = readdirSync(path.join(CONSOLE_DIST, 'assets'));
  for (const view of [
    'OverviewView',
    'ContractsView',
    'ExecuteView',
    'TransactionsView',
    'EventsView',
    'WebhooksView',
    'AttemptsView',
  ]) {
    assert.ok(
      chunks.some((c) => c.startsWith(`${view}-`)),
      `${view} is a chunk of its own`,
    );
    assert.ok(!firstLoad.some((f) => f.includes(view)), `${view} is not in the first load`);
  }
});
