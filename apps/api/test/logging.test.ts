import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Type from 'typebox';
import { createChains } from '#api/chain/chains.ts';
import { addJob } from '#api/jobs/addJob.ts';
import { defineJob } from '#api/jobs/defineJob.ts';
import { createLogger, redactUrls } from '#api/runtime/logger.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { captureLogs } from '#api-testing/logCapture.ts';
import { createTestDatabase } from '#api-testing/testDatabase.ts';

describe('request logs', () => {
  const logs = captureLogs('info');
  let h: Harness;
  before(async () => {
    h = await createHarness({ logger: logs.logger });
  });
  after(() => h.close());

  it('are JSON lines with the request id, and never hold a key or a token', async () => {
    const { project, apiKey } = await h.project();
    const { token } = await h.member(project.id, 'reader');
    await h.app.inject({
      method: 'GET',
      url: '/public-api/v3/project/get-project-detail',
      headers: { 'x-api-key': apiKey, 'x-request-id': 'trace-42' },
    });
    await h.app.inject({
      method: 'GET',
      url: '/public-api/v3/project/get-project-detail',
      headers: { authorization: `Bearer ${token}` },
    });
    await h.app.inject({
      method: 'POST',
      url: '/public-api/v3/contract/import-contract',
      headers: { 'x-api-key': `${apiKey.slice(0, -1)}x`, 'content-type': 'application/json' },
      payload: '{"networkId":',
    });
    const entries = logs.entries();
    assert.ok(
      entries.some((e) => e.reqId === 'trace-42' && e.res?.statusCode === 200),
      'request id is logged',
    );
    assert.ok(
      entries.every((e) => typeof e.reqId === 'string' || e.msg?.includes('Server')),
      'every request line has an id',
    );
    const all = logs.text();
    for (const secret of [apiKey, apiKey.slice(21), token, token.split('.')[2] as string]) {
      assert.ok(!all.includes(secret), 'no credential in the logs');
    }
  });
});

describe('URLs in logs', () => {
  it('keep only scheme, host and port: no path, query or userinfo, where provider keys live', () => {
    const cases: [string, string][] = [
      ['URL: https://eth-mainnet.example.com/v2/abcKEY123', 'URL: https://eth-mainnet.example.com/[redacted]'],
      ['wss://user:pass@rpc.example.org:8546/ws?apikey=s3cret', 'wss://[redacted]@rpc.example.org:8546/[redacted]'],
      ['"msg":"failed: http://127.0.0.1:8545\\nRequest body"', '"msg":"failed: http://127.0.0.1:8545\\nRequest body"'],
      ['"url":"http://10.0.0.1/hook?token=abc"}', '"url":"http://10.0.0.1/[redacted]"}'],
      [
        'see http://host.example/ and https://a.example#frag',
        'see http://host.example/ and https://a.example/[redacted]',
      ],
      [
        '"url":"/public-api/v3/transaction/get-transaction?transactionId=1"',
        '"url":"/public-api/v3/transaction/get-transaction?transactionId=1"',
      ],
    ];
    for (const [input, expected] of cases) assert.equal(redactUrls(input), expected);
  });
});

describe('worker logs', () => {
  it("are JSON lines in the API's shape, each naming the job, its id and its project, with URL paths cut", async () => {
    const database = await createTestDatabase();
    const logs = captureLogs('debug');
    const stop = new AbortController();
    const masterKey = randomBytes(32);
    const rpcDown = defineJob({
      name: 'test.rpc-down',
      lane: 'upkeep',
      payload: Type.Object({ projectId: Type.Integer() }),
      subject: ({ projectId }) => String(projectId),
      projectOf: async (_db, { projectId }) => projectId,
      maxAttempts: 1,
      async run({ log }) {
        log.info('calling the RPC');
        throw new Error('HTTP request failed.\n\nURL: https://rpc.example/v2/ProviderKey123456\nVersion: viem');
      },
    });
    const worker = createWorker({
      deps: {
        db: database.db,
        chains: createChains({}),
        signers: createSignerProvider(await loadWalletKeys(database.db, masterKey)),
        masterKey,
        signal: stop.signal,
        log: createLogger(logs.logger),
      },
      jobs: [rpcDown],
    });
    logs.captureConsole();
    let jobId = '';
    try {
      await worker.start();
      await addJob(database.db.pool, 'test.rpc-down', { projectId: 42 }, { maxAttempts: 1 });
      const { rows } = await database.db.query<{ id: string }>(
        `SELECT id::text FROM graphile_worker.jobs WHERE task_identifier = 'test.rpc-down'`,
      );
      jobId = rows[0]?.id as string;
      const deadline = Date.now() + 15_000;
      while (!logs.entries().some((e) => e.job === 'test.rpc-down' && e.level === 50) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      logs.restoreConsole();
      stop.abort();
      await worker.stop();
      await database.drop();
    }
    const lines = logs.entries().filter((e) => e.job === 'test.rpc-down');
    assert.deepEqual(
      lines.map((e) => [e.level, e.msg]),
      [
        [30, 'calling the RPC'],
        [50, 'test.rpc-down failed'],
      ],
    );
    for (const line of lines) {
      assert.deepEqual([line.jobId, line.projectId], [jobId, 42], 'every line names the job, its id and its project');
      for (const key of ['time', 'pid', 'hostname']) assert.ok(key in line, `${key}, as on the API's lines`);
    }
    const failure = lines[1] as (typeof lines)[number];
    assert.deepEqual([failure.attempt, failure.maxAttempts], [1, 1]);
    assert.equal(failure.err?.type, 'Error');
    assert.match(failure.err?.message ?? '', /URL: https:\/\/rpc\.example\/\[redacted\]/);
    assert.ok(!logs.text().includes('ProviderKey123456'), 'the provider key is in no line');
    assert.deepEqual(logs.consoleLines, [], 'nothing printed outside the logger');
  });
});
