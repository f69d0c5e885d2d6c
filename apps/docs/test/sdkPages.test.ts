// The SDK pages describe exactly the SDKs' public API: every export mentioned, nothing named that does not exist,
// the client's method and option tables true to the code and the OpenAPI document.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as client from '@mountain/public-api-client';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { tsImport } from 'tsx/esm/api';
import { DOCS_ROOT, pages } from './helpers/samples.ts';

const OPENAPI_FILE = createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json');

describe('SDK pages describe exactly the public API', () => {
  const sdkPages = pages()
    .filter((p) => p.startsWith('sdks-tools'))
    .map((p) => readFileSync(path.join(DOCS_ROOT, p), 'utf8'))
    .join('\n');
  const packages = [
    ['@mountain/public-api-client', 'packages/client'],
    ['@mountain/webhook-sdk', 'packages/webhooks'],
  ] as const;

  /** Every runtime export (function, class, constant) of each package entry point listed in package.json. */
  async function exportsOf(): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const [name, dir] of packages) {
      const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, dir, 'package.json'), 'utf8'));
      for (const subpath of Object.keys(manifest.exports)) {
        const specifier = `${name}${subpath.slice(1)}`;
        // tsImport: the packages' entry points are TypeScript, and this file may run bundled, without tsx's hooks.
        for (const exported of Object.keys(await tsImport(specifier, import.meta.url))) found.set(exported, specifier);
      }
    }
    return found;
  }

  it('mentions every exported function, class and constant of both SDKs', async () => {
    const exported = await exportsOf();
    assert.ok(exported.size >= 29, `${exported.size} exports`);
    const missing = [...exported].filter(([name]) => !new RegExp(`\\b${name}\\b`).test(sdkPages));
    assert.deepEqual(missing, [], 'describe each export on the SDK pages (apps/docs/docs/sdks-tools)');
    console.log(`SDK exports covered: ${exported.size}`);
  });

  it('mentions no SDK function, class or client method that does not exist', async () => {
    const exported = await exportsOf();
    const methods = new Set(
      Object.getOwnPropertyNames(client.MountainClient.prototype).filter((m) => m !== 'constructor'),
    );
    // What the pages call that belongs to Node, the frameworks, other libraries or Solidity (a contract's receive()).
    const elsewhere = new Set([
      'fetch',
      'express',
      'json',
      'use',
      'register',
      'serve',
      'listen',
      'createServer',
      'receive',
    ]);
    const unknown: string[] = [];
    const code = [...sdkPages.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
    for (const span of code) {
      for (const [, name] of span.matchAll(/(?:^|[\s.(])([a-z]\w*)\(/g)) {
        if (!exported.has(name as string) && !methods.has(name as string) && !elsewhere.has(name as string)) {
          unknown.push(`${name}() in \`${span}\``);
        }
      }
      for (const [, name] of span.matchAll(/^([A-Z]\w*Error)$/g)) {
        if (!exported.has(name as string)) unknown.push(name as string);
      }
    }
    for (const block of sdkPages.matchAll(/import \{([^}]+)\} from '(@mountain\/[\w-]+)'/g)) {
      for (const item of (block[1] as string).split(',')) {
        const name = item.trim().replace(/^type /, '');
        const module = name && (await tsImport(block[2] as string, import.meta.url));
        if (name && !(name in module) && !typeExports(block[2] as string).includes(name)) unknown.push(name);
      }
    }
    assert.deepEqual(unknown, []);
  });

  it('lists every client method with the operation it calls, as the OpenAPI document has it', () => {
    const overview = readFileSync(path.join(DOCS_ROOT, 'sdks-tools/public-api-client/overview.md'), 'utf8');
    const rows = [...overview.matchAll(/^\| `(\w+)\([^)]*\)` +\| `(GET|POST) ([^`]+)`/gm)];
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    const operations = new Map<string, string>();
    for (const [route, methods] of Object.entries(
      document.paths as Record<string, Record<string, { operationId: string }>>,
    )) {
      for (const [method, op] of Object.entries(methods))
        operations.set(op.operationId, `${method.toUpperCase()} ${route}`);
    }
    const kebab = (name: string) => name.replace(/[A-Z]/g, (l) => `-${l.toLowerCase()}`);
    for (const [, method, verb, route] of rows) {
      assert.equal(`${verb} ${route}`, operations.get(kebab(method as string)), `${method}()`);
    }
    const helpers = new Set([
      'constructor',
      'baseUrl',
      'iterateTransactions',
      'iterateWebhookMessages',
      'iterateWebhookAttempts',
      'waitForTransaction',
    ]);
    const methods = Object.getOwnPropertyNames(client.MountainClient.prototype).filter((m) => !helpers.has(m));
    assert.deepEqual(rows.map((r) => r[1]).sort(), methods.sort());
    // exchange-console-link is a static method (it needs no credentials, so no client instance).
    const statics = Object.getOwnPropertyNames(client.MountainClient).filter((m) => operations.has(kebab(m)));
    assert.equal(methods.length + statics.length, operations.size);
  });

  it('names only client options the constructor accepts', () => {
    const page = readFileSync(path.join(DOCS_ROOT, 'sdks-tools/public-api-client/getting-started.md'), 'utf8');
    const table = page.slice(
      page.indexOf('| Client option |'),
      page.indexOf('\n\n', page.indexOf('| Client option |')),
    );
    const names = [...table.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) =>
      [...(row[1] as string).matchAll(/`(\w+)`/g)].map((m) => m[1] as string),
    );
    assert.ok(names.length >= 7, names.join(', '));
    for (const name of names) {
      assert.doesNotThrow(() => new client.MountainClient({ apiKey: 'mtn_test_x', [name]: undefined }), name);
    }
    assert.throws(
      () => new client.MountainClient({ apiKey: 'mtn_test_x', maxRetry: 1 } as never),
      /Unknown MountainClient option: maxRetry/,
    );
  });
});

/** Type-only exports of a package's index.ts (they have no runtime value to import). */
function typeExports(specifier: string): string[] {
  const dir = specifier === '@mountain/webhook-sdk' ? 'packages/webhooks' : 'packages/client';
  const index = readFileSync(path.join(REPO_ROOT, dir, 'src/index.ts'), 'utf8');
  return [...index.matchAll(/type (\w+)/g)].map((m) => m[1] as string);
}
