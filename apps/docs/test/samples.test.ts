// Runs the code samples of the docs pages against a real API server, worker, PostgreSQL and anvil, the way a
// reader would: each sample reads its values from the environment variables the pages name, and what it prints or
// answers is checked here. Blocks that are not programs (answers, payloads, ABIs) are compared with what the server
// really answers. See "Executable samples" in apps/docs/README.md.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiKey, createHarness } from '@mountain/api/testing';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { type Delivery, type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import pg from 'pg';
import { DOCS_TOKEN_ADDRESS, deployDocsToken } from './helpers/docsToken.ts';
import { allSamples, type Output, runFile, type Sample, startFile, workDir, writeSample } from './helpers/samples.ts';
import { bestPracticeSteps } from './samples/bestPractices.ts';
import { type Context, databaseUrl, RECIPIENT, type Step } from './samples/context.ts';
import { eventSteps } from './samples/events.ts';
import { gettingStartedSteps } from './samples/gettingStarted.ts';
import { managementSteps } from './samples/management.ts';
import { paymentSteps } from './samples/payments.ts';
import { transactionSteps } from './samples/transactions.ts';
import { walletPoolSteps } from './samples/walletPools.ts';
import { watchingSteps } from './samples/watching.ts';
import { webhookEndpointSteps } from './samples/webhookEndpoints.ts';

/** One step per tagged block, in the order of a reader's journey (later steps use what earlier ones returned). */
const steps: Record<string, Step> = {
  ...gettingStartedSteps,
  ...transactionSteps,
  ...paymentSteps,
  ...eventSteps,
  ...watchingSteps,
  ...managementSteps,
  ...webhookEndpointSteps,
  // Late: its transferFrom is one more Transfer of the token, which the events pages' counts do not expect.
  ...bestPracticeSteps,
  // Last: once the project has a pool, its transactions may go out from other wallets than the primary one, which
  // holds the tokens the other pages' samples send.
  ...walletPoolSteps,
};

describe('docs samples', () => {
  const c = { env: {}, values: {} } as Context;
  let dir: string;
  let capture: Receiver;
  const samples = allSamples();
  const byId = new Map(samples.filter((s) => s.kind === 'run' || s.kind === 'shape').map((s) => [s.tag, s]));

  before(async () => {
    dir = workDir();
    typecheck = typecheckSamples(dir);
    typecheck.catch(() => {}); // awaited by its test; this only keeps an early failure from going unhandled
    c.anvil = await startAnvil({ port: await freePort() });
    c.token = await deployDocsToken(c.anvil.url);
    c.h = await createHarness({ rpcUrls: { 1337: c.anvil.url }, worker: true });
    await c.h.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = c.h.app.server.address() as AddressInfo;
    const { project, apiKey: key } = await c.h.project('Demo project');
    c.projectId = project.id;
    c.key = key;
    const admin = await c.h.member(project.id, 'admin');
    const detail = await c.h.call('get-project-detail', { headers: apiKey(key) });
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    c.wallet = detail.body.data.mSystemWalletTestnet.address;
    capture = await startReceiver();
    c.env = {
      MOUNTAIN_API_URL: `http://127.0.0.1:${port}/public-api/v3`,
      MOUNTAIN_API_KEY: key,
      MOUNTAIN_ACCESS_TOKEN: admin.token,
    };
  });
  after(async () => {
    await capture?.close();
    await (c.values.failingReceiver as Receiver | undefined)?.close();
    await (c.values.filteredReceiver as Receiver | undefined)?.close();
    await c.h?.close(); // also stops the API listening on loopback
    await c.anvil?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let typecheck: Promise<Output>;
  it('every TypeScript sample compiles under the repository’s strict TypeScript settings', async () => {
    const out = await typecheck;
    assert.equal(out.code, 0, `tsc found errors in the samples:\n${out.stdout}${out.stderr}`);
  });

  it('every code block of the getting-started, SDK and services pages is tagged, and every tag has a check', () => {
    const untagged = samples.filter((s) => s.kind === 'untagged').map((s) => `${s.page}:${s.line} (${s.lang})`);
    assert.deepEqual(untagged, [], 'tag each block run=<id>, shape=<id> or no-run="<reason>"');
    const tagged = samples.filter((s) => s.kind === 'run' || s.kind === 'shape');
    assert.deepEqual(
      tagged.map((s) => `${s.kind}=${s.tag}`).sort(),
      Object.entries(steps)
        .map(([id, step]) => `${step.kind}=${id}`)
        .sort(),
      'each run/shape block has one step in test/samples/, and each step one block',
    );
    assert.equal(new Set(tagged.map((s) => s.tag)).size, tagged.length, 'ids are unique');
    const counts = { run: 0, shape: 0, 'no-run': 0 } as Record<string, number>;
    for (const s of samples) counts[s.kind] = (counts[s.kind] ?? 0) + 1;
    console.log(`samples: ${counts.run} executed, ${counts.shape} shape-checked, ${counts['no-run']} not run`);
  });

  /** Runs a `run` step's sample and returns its output (a server's, once `serve` is done with it). */
  async function execute(id: string): Promise<Output> {
    const step = steps[id] as Extract<Step, { kind: 'run' }>;
    const sample = byId.get(id) as Sample;
    await step.prepare?.(c);
    const env = { ...c.env, ...(await step.env?.(c)) };
    const file = writeSample(dir, sample, step.driver);
    // A shell sample may start several admin CLI processes (a few seconds each on a busy machine).
    if (!step.serve) return runFile(file, env, sample.lang === 'bash' ? { cwd: REPO_ROOT, timeoutMs: 90_000 } : {});
    const port = Number(env.PORT ?? (await freePort()));
    const running = await startFile(file, { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/`);
    try {
      if (step.during) {
        const during = execute(step.during);
        started.set(step.during, during);
        await during;
      }
      await step.serve(c, port);
    } finally {
      await running.stop();
    }
    return running.output();
  }

  /** Starts a concurrent step together with the concurrent steps that follow it, three processes at a time. */
  const started = new Map<string, Promise<Output>>();
  function launch(id: string): Promise<Output> {
    if (!started.has(id)) {
      const ids = Object.keys(steps);
      const group: string[] = [];
      for (let i = ids.indexOf(id); i < ids.length; i++) {
        const next = steps[ids[i] as string] as Step;
        if (next.kind !== 'run' || !next.concurrent) break;
        group.push(ids[i] as string);
      }
      let running = Promise.resolve() as Promise<unknown>;
      const lanes = [running, running, running];
      group.forEach((member, index) => {
        const lane = index % lanes.length;
        running = (lanes[lane] as Promise<unknown>).then(() => execute(member));
        lanes[lane] = running.catch(() => {});
        started.set(member, running as Promise<Output>);
      });
    }
    return started.get(id) as Promise<Output>;
  }

  for (const [id, step] of Object.entries(steps)) {
    it(`${step.kind === 'run' ? 'runs' : 'checks'} ${id}`, async () => {
      const sample = byId.get(id) as Sample;
      assert.ok(sample, `no block tagged ${step.kind}=${id}`);
      if (id === 'create-subscription') await captureDelivery();
      if (step.kind === 'shape') return step.check(sample.code, c);
      const out = await (sample.lang === 'sql'
        ? runSql(sample)
        : (started.get(id) ?? (step.concurrent ? launch(id) : execute(id))));
      await step.check(out, c);
    });
  }

  /** A subscription of the test's own, to keep one real delivery (raw body and headers) for the receiver samples. */
  async function captureDelivery() {
    const res = await c.h.call('create-subscription', {
      headers: apiKey(c.key),
      body: {
        subscriptionName: 'capture',
        networkId: 1337,
        address: DOCS_TOKEN_ADDRESS,
        formattedAbiEvent: 'event Transfer(address indexed from, address indexed to, uint256 value)',
        initialBlockNumber: 0,
        scanInterval: 5,
        webhookURL: capture.url,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const pick = () =>
      capture.deliveries.find((d) => {
        const data = JSON.parse(d.body).data;
        return data.decodedLog.value === '1000' && data.decodedLog.to === RECIPIENT;
      });
    await capture.waitFor(() => pick() !== undefined, 20_000, 'a delivery of the 1000-token transfer');
    c.delivery = { ...(pick() as Delivery), secret: res.body.eventNotifierSubscription.webhookSecret };
  }

  /**
   * Runs the SQL sample in the test database inside a transaction that is rolled back: the table, then the
   * insert for three deliveries; prints the number of rows each insert returned.
   */
  async function runSql(sample: Sample): Promise<Output> {
    const [create, insert] = sample.code
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('--'))
      .map((l) => l.replace(/;$/, ''));
    const connection = new pg.Client({
      connectionString: databaseUrl(c),
    });
    await connection.connect();
    try {
      await connection.query('BEGIN');
      await connection.query(create as string);
      const counts = [];
      for (const id of ['msg_1', 'msg_1', 'msg_2'])
        counts.push((await connection.query(insert as string, [id])).rowCount);
      return { code: 0, stdout: JSON.stringify(counts), stderr: '' };
    } finally {
      await connection.query('ROLLBACK');
      await connection.end();
    }
  }
});

/** Starts `tsc` on every TypeScript sample, each written as its own module with the repository's settings. */
function typecheckSamples(dir: string): Promise<Output> {
  const folder = path.join(dir, 'typecheck');
  mkdirSync(folder, { recursive: true });
  for (const s of allSamples())
    if (s.kind === 'run' && s.lang === 'ts') writeFileSync(path.join(folder, `${s.tag}.ts`), s.code);
  writeFileSync(path.join(folder, 'package.json'), '{ "type": "module", "private": true }\n');
  const base = path.relative(folder, path.join(REPO_ROOT, 'tsconfig.base.json'));
  writeFileSync(
    path.join(folder, 'tsconfig.json'),
    JSON.stringify({
      extends: base,
      compilerOptions: { noEmit: true, rewriteRelativeImportExtensions: false },
      include: ['*.ts'],
    }),
  );
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  return runFile(tsc, {}, { cwd: folder, timeoutMs: 90_000, args: ['-p', '.'] });
}
