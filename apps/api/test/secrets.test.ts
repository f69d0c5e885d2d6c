import assert from 'node:assert/strict';
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, deployCounter, incrementsSubscription } from '@mountain/testkit/testContract.ts';
import { eventually, type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { Webhook } from 'standardwebhooks';
import { hashKey } from '#api/auth/apiKeys.ts';
import { masterKeyId, open } from '#api/crypto/secretBox.ts';
import { rotateApiKey } from '#api/projects/projects.ts';
import { createLogger } from '#api/runtime/logger.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';
import { captureLogs } from '#api-testing/logCapture.ts';
import { settled } from '#api-testing/transactionFlow.ts';
import { FAST_SETTINGS, startTestWorker } from './helpers/eventNotifier.ts';

/**
 * A full scenario on the real stack (anvil, Postgres, job worker, a local webhook receiver) with the API's
 * logger at trace level, then two searches for every secret involved: in every row of every table, and in
 * everything logged or printed.
 */
describe('secrets at rest and in logs', () => {
  const logs = captureLogs('trace');
  let anvil: AnvilHandle;
  let receiver: Receiver;
  let h: Harness;
  /** A provider key in an RPC URL (as with hosted RPC providers): an operator's secret. */
  const providerKey = `pk${Buffer.from('provider-key-of-the-operator').toString('hex')}`;
  const s = {
    revokedKey: '',
    key: '',
    tokens: [] as string[],
    webhookSecret: '',
    mnemonic: '',
    projectId: 0,
  };
  let dump = '';
  let statuses: number[] = [];
  /** Every answer of the scenario, by operation. */
  const answers: [string, string][] = [];

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    const deadRpc = `http://127.0.0.1:${await freePort()}/v3/${providerKey}`;
    receiver = await startReceiver(() => ({ status: 500 }));
    logs.captureConsole();
    try {
      h = await createHarness({ rpcUrls: { 1337: anvil.url, 11155111: deadRpc }, logger: logs.logger });
      const call = h.call;
      h.call = async (operationId, options) => {
        const res = await call(operationId, options);
        answers.push([operationId, JSON.stringify(res.body)]);
        return res;
      };
      h.deps.eventNotifier = FAST_SETTINGS;
      h.deps.delivery = FAST_SETTINGS;
      // The worker logs into the same capture: its lines are searched too.
      const worker = await startTestWorker(h, FAST_SETTINGS, createLogger(logs.logger));
      try {
        await scenario();
      } finally {
        await worker.stop();
      }
    } finally {
      logs.restoreConsole();
    }
    const { rows } = await h.db.query<{ ciphertext: Buffer }>(
      `SELECT ciphertext FROM deployment_secrets WHERE name = 'wallet-mnemonic'`,
    );
    s.mnemonic = open(
      h.masterKey,
      (rows[0] as { ciphertext: Buffer }).ciphertext,
      'deployment_secrets:wallet-mnemonic',
    );
    dump = await dumpDatabase();
    statuses = logs.entries().flatMap((e) => (e.res ? [e.res.statusCode] : []));
  });
  after(async () => {
    logs.restoreConsole();
    await receiver?.close();
    await h?.close();
    await anvil?.stop();
  });

  async function scenario() {
    const counter = await deployCounter(anvil.url);
    const created = await h.project('Secrets');
    s.projectId = created.project.id;
    s.revokedKey = created.apiKey;
    s.key = await rotateApiKey(h.db, created.project.id, 'test');
    const expect = async (status: number, ...args: Parameters<Harness['call']>) => {
      const res = await h.call(...args);
      assert.equal(res.status, status, `${args[0]}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await expect(401, 'get-project-detail', { headers: apiKey(s.revokedKey) });
    const admin = await h.member(created.project.id, 'admin');
    const editor = await h.member(created.project.id, 'editor');
    const expired = h.token(admin.userId, { expiresInSeconds: 1, now: Date.now() - 60_000 });
    s.tokens.push(admin.token, editor.token, expired);
    await expect(200, 'get-projects', { headers: bearer(admin.token) });
    await expect(200, 'get-project-detail', { headers: apiKey(s.key) });

    const contract = (
      await expect(201, 'import-contract', {
        headers: bearer(editor.token),
        body: { networkId: 1337, address: counter, formattedAbi: COUNTER_FORMATTED_ABI },
      })
    ).contract;
    const increment = COUNTER_FORMATTED_ABI.find((e) => e.startsWith('function increment(')) as string;
    const fn = (
      await expect(201, 'activate-contract-function', {
        headers: apiKey(s.key),
        body: { contractId: contract.id, formattedAbiFunction: increment },
      })
    ).contractActivatedFunction;
    const tx = await expect(201, 'execute-transaction', {
      headers: bearer(editor.token),
      body: { contractActivatedFunctionId: fn.id, functionArgs: ['2'], idempotencyKey: 'secrets-1' },
    });
    assert.equal((await settled(h, apiKey(s.key), tx.transaction.id)).status, 'succeeded');

    const subscription = (
      await expect(201, 'create-subscription', {
        headers: apiKey(s.key),
        body: incrementsSubscription(counter, { webhookURL: receiver.url, webhookMaxRetries: 0 }),
      })
    ).eventNotifierSubscription;
    s.webhookSecret = subscription.webhookSecret;
    const recordsOf = async () =>
      (await h.call('get-records', { headers: apiKey(s.key), body: { subscriptionId: subscription.id } })).body
        .eventNotifierRecords as { status: string }[];
    await eventually(async () => (await recordsOf()).some((r) => r.status === 'failed'), 20_000, 'a failed webhook');
    receiver.respondWith(() => ({ status: 200 }));
    const resent = await expect(200, 'resend-failed-webhook', {
      headers: bearer(admin.token),
      body: { subscriptionId: subscription.id },
    });
    assert.equal(resent.record.requeuedCount, 1);
    await eventually(async () => (await recordsOf()).every((r) => r.status === 'notified'), 20_000, 'the resend');
    const delivered = receiver.deliveries.at(-1);
    assert.ok(delivered);
    new Webhook(s.webhookSecret).verify(delivered.body, delivered.headers);
    await expect(200, 'update-subscription-webhook', {
      headers: apiKey(s.key),
      body: { id: subscription.id, webhookMaxRetries: 3 },
    });

    // Failures: wrong credentials, bad input, missing objects, a network without RPC, an RPC that is down.
    await expect(401, 'get-project-detail', {
      headers: apiKey(`${s.key.slice(0, -1)}${s.key.endsWith('a') ? 'b' : 'a'}`),
    });
    await expect(401, 'get-project-detail', { headers: bearer(`${admin.token.slice(0, -2)}AA`) });
    await expect(401, 'get-project-detail', { headers: bearer(expired) });
    await expect(400, 'import-contract', {
      headers: { ...apiKey(s.key), 'content-type': 'application/json' },
      rawBody: `{"networkId": "${s.key}"`,
    });
    await expect(400, 'create-subscription', {
      headers: apiKey(s.key),
      body: { subscriptionName: s.webhookSecret, networkId: 1337, address: 'nope', scanInterval: 1 },
    });
    await expect(404, 'get-transaction', {
      headers: apiKey(s.key),
      query: { transactionId: '00000000-0000-4000-8000-000000000000' },
    });
    for (const networkId of [137, 11155111]) {
      const other = (
        await expect(201, 'import-contract', {
          headers: apiKey(s.key),
          body: { networkId, address: counter, formattedAbi: COUNTER_FORMATTED_ABI },
        })
      ).contract;
      const otherFn = (
        await expect(201, 'activate-contract-function', {
          headers: apiKey(s.key),
          body: { contractId: other.id, formattedAbiFunction: increment },
        })
      ).contractActivatedFunction;
      await expect(networkId === 137 ? 422 : 503, 'execute-transaction', {
        headers: apiKey(s.key),
        body: { contractActivatedFunctionId: otherFn.id, functionArgs: ['1'], idempotencyKey: `down-${networkId}` },
      });
    }
    const down = (
      await expect(201, 'create-subscription', {
        headers: apiKey(s.key),
        body: incrementsSubscription(counter, { subscriptionName: 'On a chain that is down', networkId: 11155111 }),
      })
    ).eventNotifierSubscription;
    const failedScan = await eventually(async () => {
      const list = (await h.call('get-subscriptions', { headers: apiKey(s.key) })).body.eventNotifierSubscriptions;
      return list.find((x: { id: string; scanStatus: string }) => x.id === down.id && x.scanStatus === 'failed');
    });
    assert.match(failedScan.lastScanFailureMessage, /Could not reach the RPC of network 11155111/);
    // Readiness is public: it names the chain that is down, not its URL.
    const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, 'a chain down leaves the process ready (degraded)');
    assert.match(ready.json().checks['chain:11155111'], /^unreachable: /);
    answers.push(['readyz', ready.body]);
  }

  /** Every row of every table (the job queue's too), as Postgres prints it: bytea as \x hex. */
  async function dumpDatabase(): Promise<string> {
    const { rows: tables } = await h.db.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    assert.ok(tables.length >= 10, `${tables.length} tables`);
    const parts: string[] = [];
    for (const t of tables) {
      const { rows } = await h.db.query<{ row: string }>(`SELECT x::text AS row FROM "${t.schema}"."${t.name}" x`);
      parts.push(`# ${t.schema}.${t.name}`, ...rows.map((r) => r.row));
    }
    return parts.join('\n');
  }

  /** The ways one secret could be written down: as is, and its bytes as hex, base64 and base64url. */
  function spellings(secret: string | Buffer | Uint8Array): string[] {
    const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
    const out = [bytes.toString('hex'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url')];
    if (typeof secret === 'string') out.unshift(secret);
    return out;
  }

  /** Every secret of the scenario, by name, each with all its spellings. */
  async function allSecrets(): Promise<[string, string[]][]> {
    const out: [string, string[]][] = [];
    for (const [name, key] of [
      ['API key', s.key],
      ['revoked API key', s.revokedKey],
    ] as const) {
      const secretPart = key.slice(-32);
      out.push([name, spellings(key)], [`${name} secret part`, spellings(secretPart)]);
      // No 8-character piece of the secret part either (the 12-character lookup id before it is public).
      const pieces = Array.from({ length: secretPart.length - 7 }, (_, i) => secretPart.slice(i, i + 8));
      out.push([`${name} pieces`, pieces]);
    }
    s.tokens.forEach((token, i) => {
      out.push([`access token ${i}`, spellings(token)]);
      out.push([`access token ${i} signature`, [token.split('.')[2] as string]]);
    });
    const whsec = s.webhookSecret.slice('whsec_'.length);
    out.push(['webhook secret', spellings(s.webhookSecret)], ['webhook secret body', spellings(whsec)]);
    out.push(['webhook signing key', spellings(Buffer.from(whsec, 'base64'))]);
    out.push(['master key', spellings(h.masterKey)], ['token signing key', spellings(h.tokenSigningKey)]);
    out.push(['RPC provider key', [providerKey]]);
    out.push(['mnemonic', spellings(s.mnemonic)]);
    const words = s.mnemonic.split(' ');
    assert.equal(words.length, 24);
    const pairs = words.slice(1).map((w, i) => `${words[i]} ${w}`);
    out.push(['mnemonic word pairs', pairs]);
    // BIP-39 seed and BIP-32 master key, computed independently of the wallet code.
    const seed = pbkdf2Sync(s.mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
    out.push(['wallet seed', spellings(seed)]);
    out.push(['HD master key', spellings(createHmac('sha512', 'Bitcoin seed').update(seed).digest().subarray(0, 32))]);
    const { rows } = await h.db.query<{ derivation_index: number }>(
      'SELECT derivation_index FROM system_wallets WHERE derivation_index IS NOT NULL',
    );
    const indexes = new Set([0, 1, ...rows.map((r) => r.derivation_index)]);
    for (const index of indexes) {
      const privateKey = h.keys.account(index).getHdKey().privateKey as Uint8Array;
      assert.equal(privateKey.length, 32);
      out.push([`private key of system wallet ${index}`, spellings(privateKey)]);
    }
    return out;
  }

  function assertAbsent(text: string, where: string, secrets: [string, string[]][]) {
    for (const [name, forms] of secrets) {
      for (const form of forms) {
        assert.ok(form.length >= 7, `${name}: "${form}" is too short to search for`);
        const at = text.indexOf(form);
        assert.equal(at, -1, `${name} found in ${where}: …${text.slice(Math.max(0, at - 80), at + 80)}…`);
      }
    }
  }

  it('the scenario produced what the searches need (rows, log lines of every kind of answer)', () => {
    assert.ok(dump.includes(s.key.slice(9, 21)), 'the public lookup id of the key is stored');
    assert.ok(dump.includes(`${s.webhookSecret.slice(0, 10)}****`), 'the masked webhook secret is stored');
    assert.match(dump, /"status": "notified"|,notified,/);
    for (const status of [200, 201, 400, 401, 404, 422, 503]) assert.ok(statuses.includes(status), `${status} logged`);
    const entries = logs.entries();
    assert.ok(
      entries.some((e) => e.msg === 'incoming request'),
      'trace-level lines are captured',
    );
    assert.ok(
      entries.some((e) => e.level >= 50 && e.err),
      'the 503 is logged with its error',
    );
    // The worker's lines, each naming its job and project: sending, delivering, and the scan of the chain that is down.
    for (const job of ['transaction:send', 'transaction:monitor', 'event-notifier:scan', 'event-notifier:deliver']) {
      assert.ok(
        entries.some((e) => e.job === job && e.projectId === s.projectId && typeof e.jobId === 'string'),
        `${job} logged with its job id and project`,
      );
    }
    assert.ok(
      entries.some((e) => e.job === 'event-notifier:scan' && e.level === 40 && e.msg === 'scan failed'),
      'the failed scan is logged',
    );
  });

  it('answers show keys masked, the webhook secret only when the subscription is created, no other secret', async () => {
    const secrets = (await allSecrets()).filter(([name]) => !name.startsWith('webhook'));
    for (const [operationId, body] of answers) {
      assertAbsent(body, `the answer of ${operationId}`, secrets);
      if (operationId !== 'create-subscription') {
        assertAbsent(body, `the answer of ${operationId}`, [['webhook secret body', [s.webhookSecret.slice(6)]]]);
      }
    }
    assert.ok(answers.some(([op, body]) => op === 'get-projects' && body.includes(`"apiKey":"mtn_test_`)));
    assert.ok(answers.some(([op, body]) => op === 'create-subscription' && body.includes(s.webhookSecret)));
  });

  it('API keys are stored only as SHA-256 hashes', async () => {
    const { rows } = await h.db.query<{ lookup_id: string; secret_hash: Buffer; masked: string }>(
      'SELECT lookup_id, secret_hash, masked FROM api_keys',
    );
    for (const key of [s.key, s.revokedKey]) {
      const row = rows.find((r) => r.lookup_id === key.slice(9, 21));
      assert.ok(row, 'the key has a row');
      assert.deepEqual(row.secret_hash, hashKey(key));
      assert.equal(row.masked, `mtn_test_${row.lookup_id}********`);
    }
  });

  it('the wallet mnemonic and the webhook secret are sealed with AES-256-GCM (version, key id, IV, tag, ciphertext)', async () => {
    const mnemonic = await h.db.query<{ ciphertext: Buffer }>('SELECT ciphertext FROM deployment_secrets');
    const subscriptions = await h.db.query<{ id: string; webhook_secret: Buffer }>(
      'SELECT id, webhook_secret FROM event_notifier_subscriptions',
    );
    const sealed: [Buffer, string, string | undefined][] = [
      [(mnemonic.rows[0] as { ciphertext: Buffer }).ciphertext, 'deployment_secrets:wallet-mnemonic', s.mnemonic],
      ...subscriptions.rows.map((r): [Buffer, string, string | undefined] => [
        r.webhook_secret,
        `event-notifier-subscription:${r.id}`,
        undefined,
      ]),
    ];
    const ivs = new Set<string>();
    for (const [box, context, known] of sealed) {
      const plaintext = open(h.masterKey, box, context);
      if (known) assert.equal(plaintext, known);
      assert.equal(box[0], 2, 'version byte');
      assert.equal(box.subarray(1, 9).toString('hex'), masterKeyId(h.masterKey), 'the id of the key that sealed it');
      assert.equal(
        box.length,
        1 + 8 + 12 + 16 + Buffer.byteLength(plaintext),
        'version | 8-byte key id | 12-byte IV | 16-byte tag | body',
      );
      ivs.add(box.subarray(9, 21).toString('hex'));
      for (const form of spellings(plaintext)) assert.ok(!box.toString('latin1').includes(form));
      assert.ok(!box.includes(Buffer.from(plaintext)), 'the body is not the plaintext');
      assert.throws(() => open(h.masterKey, box, `${context}x`), 'bound to its row: another context fails');
      assert.throws(() => open(Buffer.alloc(32, 7), box, context), 'another key fails');
      const tampered = Buffer.from(box);
      tampered[tampered.length - 1] = (tampered.at(-1) as number) ^ 1;
      assert.throws(() => open(h.masterKey, tampered, context), 'the tag authenticates the body');
    }
    assert.equal(ivs.size, sealed.length, 'a fresh IV per secret');
    const webhookBoxes = sealed.slice(1).map(([box, context]) => open(h.masterKey, box, context));
    assert.ok(webhookBoxes.includes(s.webhookSecret), 'the secret the webhooks were signed with is the sealed one');
  });

  it('no secret appears anywhere in the database, in any spelling', async (t) => {
    const secrets = await allSecrets();
    assertAbsent(dump, 'the database', secrets);
    const spelled = secrets.reduce((n, [, forms]) => n + forms.length, 0);
    t.diagnostic(`${dump.split('\n').length} rows searched for ${secrets.length} secrets in ${spelled} spellings`);
  });

  it('no secret appears in the logs (trace level) or in what the process printed', async (t) => {
    assert.ok(logs.lines.length > 50, `${logs.lines.length} log lines`);
    const secrets = await allSecrets();
    assertAbsent(logs.text(), 'the logs', secrets);
    t.diagnostic(`${logs.lines.length} log lines and ${logs.consoleLines.length} printed lines searched`);
    // The error of the RPC endpoint that was down is still there, without the endpoint's path.
    assert.match(logs.text(), /URL: http:\/\/127\.0\.0\.1:\d+\/\[redacted\]/);
  });
});
