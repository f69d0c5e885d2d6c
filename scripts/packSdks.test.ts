// The SDKs as a user gets them: `npm run pack:sdks`'s tarballs installed into a project outside the repository,
// then run there with plain `node` (no TypeScript loader, no workspace to resolve from): the docs' own client and
// receiver samples as ESM against a real API, the same through require(), and a consumer's strict typecheck of
// both module systems.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createHarness, type Harness } from '@mountain/api/testing';
import * as clientSource from '@mountain/public-api-client';
import * as webhookSource from '@mountain/webhook-sdk';
import { docsBlock } from './lib/docsBlocks.ts';
import { typescript7 } from './lib/typecheck.ts';
import { packSdks } from './packSdks.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A `ts` block of a docs page by its tag (`run=<id>`), its TypeScript types stripped as a reader's build would. */
async function docsSample(page: string, id: string): Promise<string> {
  const { transform } = await import('esbuild');
  return (await transform(docsBlock(page, 'ts', id), { loader: 'ts', format: 'esm' })).code;
}

describe('the SDK tarballs, installed outside the repository', () => {
  let project: string;
  let h: Harness;
  let env: Record<string, string>;
  let tarballs: string[];

  /** Runs a file of the project with plain node: no loader from NODE_OPTIONS, cwd outside the repository. */
  async function node(file: string): Promise<string[]> {
    const { NODE_OPTIONS: _, ...inherited } = process.env;
    const { stdout } = await run(process.execPath, [file], { cwd: project, env: { ...inherited, ...env } });
    return stdout.trim().split('\n');
  }

  before(async () => {
    project = mkdtempSync(path.join(tmpdir(), 'mountain-sdk-user-'));
    const harness = createHarness();
    tarballs = await packSdks(path.join(project, 'packs'));
    writeFileSync(path.join(project, 'package.json'), '{ "name": "sdk-user", "private": true, "type": "module" }\n');
    // The SDKs have no runtime dependencies, so nothing is fetched from the registry.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', ...tarballs], {
      cwd: project,
    });
    h = await harness;
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const { project: created, apiKey } = await h.project('Demo project');
    const admin = await h.member(created.id, 'admin');
    const { port } = h.app.server.address() as AddressInfo;
    env = {
      MOUNTAIN_API_URL: `http://127.0.0.1:${port}/public-api/v3`,
      MOUNTAIN_API_KEY: apiKey,
      MOUNTAIN_ACCESS_TOKEN: admin.token,
      MOUNTAIN_PROJECT_ID: String(created.id),
    };
  });
  after(async () => {
    await h?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('packs one tarball per SDK with the built files only', async () => {
    assert.deepEqual(
      tarballs.map((t) => path.basename(t)),
      ['mountain-public-api-client-3.0.0.tgz', 'mountain-webhook-sdk-1.0.0.tgz'],
    );
    for (const name of ['public-api-client', 'webhook-sdk']) {
      const installed = path.join(project, 'node_modules/@mountain', name);
      const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
      assert.equal(manifest.scripts, undefined);
      assert.equal(manifest.devDependencies, undefined);
      assert.equal(manifest.dependencies, undefined, 'no runtime dependencies');
      const { stdout } = await run('tar', ['tzf', tarballs[name === 'webhook-sdk' ? 1 : 0] as string]);
      const files = stdout.trim().split('\n');
      assert.deepEqual(
        files.filter(
          (f) => !/^package\/(dist\/.*\.(js|d\.ts)|dist\/cjs\/package\.json|package\.json|README\.md)$/.test(f),
        ),
        [],
      );
      assert.deepEqual(
        files.filter((f) => /test|testing|src\//.test(f)),
        [],
      );
    }
  });

  it("runs the docs' client and verify samples as ESM with plain node", async () => {
    const page = 'sdks-tools/public-api-client/getting-started.md';
    writeFileSync(path.join(project, 'client-access-token.js'), await docsSample(page, 'client-access-token'));
    assert.deepEqual(await node('client-access-token.js'), [`${env.MOUNTAIN_PROJECT_ID} Demo project`]);

    writeFileSync(
      path.join(project, 'verify.js'),
      await docsSample('sdks-tools/webhook-sdk/implementation.md', 'verify'),
    );
    writeFileSync(
      path.join(project, 'receive.js'),
      `import { generateSecret, sign } from '@mountain/webhook-sdk';
      import { readWebhook } from './verify.js';
      process.env.MOUNTAIN_WEBHOOK_SECRET = generateSecret();
      const data = { event: { name: 'Transfer' }, decodedLog: { value: '1000' } };
      const body = JSON.stringify({ type: 'event-notifier.event', data });
      const headers = await sign({ id: 'msg_1', body, secret: process.env.MOUNTAIN_WEBHOOK_SECRET });
      console.log((await readWebhook(body, headers)) !== undefined);
      console.log((await readWebhook(body.replace('1000', '1001'), headers)) === undefined);
      `,
    );
    assert.deepEqual(await node('receive.js'), ["event-notifier.event Transfer { value: '1000' }", 'true', 'true']);
  });

  it('exports the same names from import and require as the sources, and calls the API through require()', async () => {
    writeFileSync(
      path.join(project, 'names.cjs'),
      `(async () => {
        for (const name of ['@mountain/public-api-client', '@mountain/webhook-sdk']) {
          console.log(JSON.stringify([Object.keys(await import(name)).sort(), Object.keys(require(name)).sort()]));
        }
      })();`,
    );
    const [client, webhooks] = (await node('names.cjs')).map((line) => JSON.parse(line));
    assert.deepEqual(client, [Object.keys(clientSource).sort(), Object.keys(clientSource).sort()]);
    assert.deepEqual(webhooks, [Object.keys(webhookSource).sort(), Object.keys(webhookSource).sort()]);

    writeFileSync(
      path.join(project, 'commonjs.cjs'),
      `const { MountainClient, NotFoundError } = require('@mountain/public-api-client');
      const { generateSecret, NoMatchingSignatureError, sign, verify } = require('@mountain/webhook-sdk');
      (async () => {
        const mountain = new MountainClient({ apiKey: process.env.MOUNTAIN_API_KEY, baseUrl: process.env.MOUNTAIN_API_URL });
        const { data } = await mountain.getProjectDetail();
        console.log(data.mSystemWalletTestnet.address);
        console.log(await mountain.getTransaction({ transactionId: '00000000-0000-4000-8000-000000000000' }).catch((e) => e instanceof NotFoundError && e.code));
        const secret = generateSecret();
        const body = '{"type":"endpoint.disabled","data":{}}';
        const headers = await sign({ id: 'msg_2', body, secret });
        console.log((await verify(body, headers, secret)).type);
        console.log(await verify(body, headers, generateSecret()).catch((e) => e instanceof NoMatchingSignatureError && e.code));
      })();`,
    );
    const detail = await h.call('get-project-detail', { headers: { 'x-api-key': env.MOUNTAIN_API_KEY as string } });
    assert.deepEqual(await node('commonjs.cjs'), [
      detail.body.data.mSystemWalletTestnet.address,
      'NOT_FOUND',
      'endpoint.disabled',
      'NO_MATCHING_SIGNATURE',
    ]);
  });

  it('typechecks a consumer of both SDKs as ESM and as CommonJS under strict TypeScript', async () => {
    const uses = (imports: string) => `${imports}
      const mountain = new MountainClient({ apiKey: 'k' });
      export const status: Promise<TransactionStatus> = mountain.getTransaction({ transactionId: 't' }).then((t) => t.transaction.status);
      export const event: Promise<WebhookEvent> = verify('{}', {}, 'whsec_x');
      // @ts-expect-error: the client has no such operation
      mountain.noSuchOperation();\n`;
    writeFileSync(
      path.join(project, 'consumer.mts'),
      uses(`import { MountainClient, type TransactionStatus } from '@mountain/public-api-client';
      import { verify, type WebhookEvent } from '@mountain/webhook-sdk';`),
    );
    writeFileSync(
      path.join(project, 'consumer.cts'),
      uses(`import { MountainClient, type TransactionStatus } from '@mountain/public-api-client';
      import { verify, type WebhookEvent } from '@mountain/webhook-sdk';`),
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2023',
          lib: ['es2023', 'dom'],
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
        },
        files: ['consumer.mts', 'consumer.cts'],
      }),
    );
    const checked = await run(process.execPath, [typescript7(ROOT), '-p', '.', '--singleThreaded'], {
      cwd: project,
    }).catch((e: { stdout: string }) => e);
    assert.equal(checked.stdout, '', 'the consumer typechecks');
  });
});
