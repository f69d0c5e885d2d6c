import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter, incrementsSubscription } from '@mountain/testkit/testContract.ts';
import { eventually, type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { buildApp } from '#api/app.ts';
import { ConfigError, loadConfig } from '#api/config/config.ts';
import { addJob } from '#api/jobs/addJob.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, settled } from '#api-testing/transactionFlow.ts';
import { spawnWorker, type WorkerProcess } from './helpers/workerProcess.ts';

const TOKEN = 'metrics-token-for-the-tests-0123';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text answer. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

describe('GET /metrics', () => {
  let anvil: AnvilHandle;
  let receiver: Receiver;
  let h: Harness;
  let worker: WorkerProcess | undefined;
  let workerMetrics = '';

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    receiver = await startReceiver(() => ({ status: 500 }));
    h = await createHarness({
      rpcUrls: { 1337: anvil.url },
      metricsToken: TOKEN,
      rateLimit: { perMinute: 60_000, burst: 60_000, authFailuresPerMinute: 3 },
    });
  });
  after(async () => {
    await worker?.stop();
    await h?.close();
    await receiver?.close();
    await anvil?.stop();
  });

  const scrapeApi = async () => {
    const res = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 200, res.body);
    return parse(res.body);
  };
  const scrapeWorker = async () => {
    const res = await fetch(workerMetrics);
    assert.equal(res.status, 200);
    return parse(await res.text());
  };

  it('answers on the API port only to the bearer token, in the Prometheus text format', async () => {
    const none = await h.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="metrics"');
    const wrong = await h.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
    });
    assert.equal(wrong.statusCode, 401);
    assert.ok(!wrong.body.includes('mountain_'), 'nothing measured is shown');
    const ok = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.statusCode, 200);
    assert.match(String(ok.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(ok.body, /^# TYPE mountain_http_requests_total counter$/m);
    assert.ok(value(parse(ok.body), 'process_resident_memory_bytes') > 0, 'process metrics too');
    assert.equal(value(parse(ok.body), 'mountain_platform_state_up'), 1);

    const untokened = buildApp({ ...h.deps, metricsToken: undefined });
    const hidden = await untokened.inject({ method: 'GET', url: '/metrics' });
    await untokened.close();
    assert.equal(hidden.statusCode, 404, 'without METRICS_TOKEN the API port serves no metrics');
  });

  it('counts requests by operation and status, with their latency', async () => {
    const { apiKey: key } = await h.project('Measured');
    const before = await scrapeApi();
    for (let i = 0; i < 3; i++) {
      assert.equal((await h.call('get-project-detail', { headers: apiKey(key) })).status, 200);
    }
    assert.equal(
      (await h.call('get-project-detail', { headers: apiKey(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`) }))
        .status,
      401,
    );
    await h.app.inject({ method: 'GET', url: '/no-such-route' });
    const after = await scrapeApi();
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    const op = { operation: 'get-project-detail' };
    assert.equal(delta('mountain_http_requests_total', { ...op, status: '200' }), 3);
    assert.equal(delta('mountain_http_requests_total', { ...op, status: '401' }), 1);
    assert.equal(delta('mountain_http_requests_total', { operation: 'unmatched', status: '404' }), 1);
    assert.equal(delta('mountain_http_request_duration_seconds_count', op), 4);
    assert.ok(delta('mountain_http_request_duration_seconds_sum', op) > 0);
    assert.equal(delta('mountain_http_request_duration_seconds_bucket', { ...op, le: '+Inf' }), 4);
    assert.ok(!after.some((s) => s.labels.operation === '/no-such-route'), 'never the requested URL');
  });

  it('counts rate-limit refusals', async () => {
    const before = value(await scrapeApi(), 'mountain_rate_limit_refusals_total', { limit: 'auth_failures' });
    const statuses: number[] = [];
    // From an address of its own: past its limit, an address's keys not in use yet wait too, and the tests after
    // this one make new keys.
    for (let i = 0; i < 6; i++) {
      const res = await h.app.inject({
        method: 'GET',
        url: '/public-api/v3/project/get-project-detail',
        remoteAddress: '192.0.2.99',
        headers: apiKey(`mtn_test_${'x'.repeat(44)}`),
      });
      statuses.push(res.statusCode);
    }
    const refused = statuses.filter((s) => s === 429).length;
    assert.ok(refused >= 3, statuses.join(','));
    const after = value(await scrapeApi(), 'mountain_rate_limit_refusals_total', { limit: 'auth_failures' });
    assert.equal(after - before, refused);
  });

  it('queue, transactions, nonce lag, scan lag and webhooks follow real work, on the API and a worker process', async () => {
    const counter = await deployCounter(anvil.url);
    const project = await counterProject(h, counter, ['increment']);
    const executed = await h.call('execute-transaction', {
      headers: project.headers,
      body: { contractActivatedFunctionId: project.ids.increment, functionArgs: ['1'], idempotencyKey: 'm-1' },
    });
    assert.equal(executed.status, 201, JSON.stringify(executed.body));
    const created = await h.call('create-subscription', {
      headers: project.headers,
      body: incrementsSubscription(counter, { webhookURL: receiver.url, webhookMaxRetries: 5 }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // A job no worker runs (its name is in no task list): it waits, and its age grows.
    await addJob(h.db.pool, 'test:unserved', {}, { maxAttempts: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const head = Number(await readClient(anvil.url).getBlockNumber());

    // No worker yet: the work waits.
    const waiting = await scrapeApi();
    const tx = { network: '1337' };
    assert.equal(value(waiting, 'mountain_transactions_unfinished', { ...tx, status: 'created' }), 1);
    assert.ok(value(waiting, 'mountain_transaction_oldest_unfinished_seconds', tx) >= 1);
    assert.equal(value(waiting, 'mountain_jobs', { task: 'transaction:send', state: 'queued' }), 1);
    assert.ok(value(waiting, 'mountain_job_oldest_queued_seconds', { task: 'transaction:send' }) >= 1);
    assert.equal(value(waiting, 'mountain_jobs', { task: 'event-notifier:scan', state: 'queued' }), 1);
    assert.equal(value(waiting, 'mountain_event_scan_lag_blocks', tx), head + 1, 'nothing scanned from block 0');
    assert.equal(value(waiting, 'mountain_network_up', tx), 1);

    const port = await freePort();
    worker = await spawnWorker({
      DATABASE_URL: h.databaseUrl,
      MASTER_KEY: h.masterKey.toString('base64'),
      TOKEN_SIGNING_KEY: h.tokenSigningKey.toString('base64'),
      RPC_URL_1337: anvil.url,
      METRICS_PORT: String(port),
    });
    workerMetrics = `http://127.0.0.1:${port}/metrics`;
    assert.equal((await settled(h, project.headers, executed.body.transaction.id, 60_000)).status, 'succeeded');
    await receiver.waitFor(() => receiver.deliveries.length >= 2, 30_000, 'a failed attempt and its retry');
    receiver.respondWith(() => ({ status: 200 }));
    await eventually(
      async () => value(await scrapeWorker(), 'mountain_webhook_deliveries_total', { outcome: 'delivered' }) >= 1,
      30_000,
      'a delivered webhook',
    );
    // A job that fails on its only attempt: a delivery for a subscription id that is no uuid.
    await addJob(h.db.pool, 'event-notifier:deliver', { subscriptionId: 'not-a-uuid' }, { maxAttempts: 1 });

    const done = await eventually(async () => {
      const samples = await scrapeApi();
      const settledAll =
        value(samples, 'mountain_transactions_unfinished', tx) === 0 &&
        value(samples, 'mountain_jobs', { task: 'event-notifier:deliver', state: 'failed' }) === 1 &&
        value(samples, 'mountain_event_scan_lag_blocks', tx) === 0;
      return settledAll && samples;
    }, 30_000);
    assert.equal(value(done, 'mountain_transaction_oldest_unfinished_seconds', tx), 0);
    assert.equal(value(done, 'mountain_jobs', { task: 'transaction:send', state: 'queued' }), 0);
    assert.equal(value(done, 'mountain_jobs', { task: 'test:unserved', state: 'queued' }), 1);
    assert.ok(value(done, 'mountain_job_oldest_queued_seconds', { task: 'test:unserved' }) >= 1);
    const wallet = { network: '1337', wallet: project.wallet };
    assert.equal(value(done, 'mountain_wallet_nonce_lag', wallet), 0, 'every nonce it used is on the chain');

    // Nonces the platform handed out that the node never got (a broadcast lost with its worker).
    await h.db.query('UPDATE wallet_nonces SET next_nonce = next_nonce + 2');
    assert.equal(value(await scrapeApi(), 'mountain_wallet_nonce_lag', wallet), 2);
    await h.db.query('UPDATE wallet_nonces SET next_nonce = next_nonce - 2');

    // The worker process serves the same state on its own port, and its own webhook attempts.
    const fromWorker = await scrapeWorker();
    assert.equal(value(fromWorker, 'mountain_jobs', { task: 'event-notifier:deliver', state: 'failed' }), 1);
    assert.equal(value(fromWorker, 'mountain_wallet_nonce_lag', wallet), 0);
    // Its balance in ether units, beside the network's low-balance threshold (LOW_BALANCE_WEI_1337: 1 ether).
    const balance = await readClient(anvil.url).getBalance({ address: project.wallet as `0x${string}` });
    assert.equal(value(fromWorker, 'mountain_wallet_balance', wallet), Number(balance) / 1e18);
    assert.equal(value(fromWorker, 'mountain_wallet_low_balance_threshold', { network: '1337' }), 1);
    assert.ok(value(fromWorker, 'mountain_webhook_deliveries_total', { outcome: 'http_error' }) >= 2);
    const attempts = value(fromWorker, 'mountain_webhook_deliveries_total');
    assert.equal(value(fromWorker, 'mountain_webhook_delivery_duration_seconds_count'), attempts);
    assert.equal(attempts, receiver.deliveries.length, 'one count per attempt the receiver got');
    assert.equal(value(fromWorker, 'mountain_http_requests_total'), 0, 'a worker serves no API requests');
  });
});

describe('metrics configuration', () => {
  const base = { NODE_ENV: 'test', MASTER_KEY: Buffer.alloc(32, 1).toString('base64') };
  const withKey = { ...base, TOKEN_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64') };

  it('takes METRICS_TOKEN, METRICS_PORT and METRICS_HOST', () => {
    assert.deepEqual(loadConfig(withKey).metrics, { token: undefined, port: undefined, host: '127.0.0.1' });
    const config = loadConfig({ ...withKey, METRICS_TOKEN: TOKEN, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
    assert.deepEqual(config.metrics, { token: TOKEN, port: 9464, host: '0.0.0.0' });
  });

  it('takes LOW_BALANCE_WEI_<networkId>: the network defaults, a wei amount, 0 for none; refuses what is not wei', () => {
    assert.equal(loadConfig(withKey).lowBalanceWei[1], 50_000_000_000_000_000n);
    const config = loadConfig({ ...withKey, LOW_BALANCE_WEI_1337: '2500', LOW_BALANCE_WEI_1: '0' });
    assert.equal(config.lowBalanceWei[1337], 2_500n);
    assert.equal(config.lowBalanceWei[1], undefined);
    assert.throws(
      () => loadConfig({ ...withKey, LOW_BALANCE_WEI_137: '0.5' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.includes('LOW_BALANCE_WEI_137 must be a whole number of wei (0 turns the warning off)'),
    );
  });

  it('refuses a short token without quoting it, and a port that is none', () => {
    const secret = 'short secret';
    assert.throws(
      () => loadConfig({ ...withKey, METRICS_TOKEN: secret, METRICS_PORT: '70000' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.includes('METRICS_TOKEN must be 16 to 256 visible ASCII characters, without spaces') &&
        error.problems.some((p) => p.startsWith('METRICS_PORT must be an integer from 0 to 65535')) &&
        !error.message.includes(secret),
    );
  });
});
