import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { bundledEntry } from '@mountain/testkit/devBundle.js';
import { freePort } from '@mountain/testkit/ports.ts';
import { TRANSACTION_EVENT_TYPES } from '@mountain/webhook-sdk';
import { REPO_ROOT } from '#api/config/config.ts';
import { deploymentSecretContext, MASTER_KEY_CHECK, SEALED_COLUMNS } from '#api/crypto/sealedColumns.ts';
import { masterKeyId, masterKeyRing, open, seal, sealedKeyId } from '#api/crypto/secretBox.ts';
import { secretContext } from '#api/eventNotifier/rows.ts';
import { endpointSecretContext } from '#api/webhooks/endpoints/endpointRows.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { ADMIN_BIN } from './helpers/adminCli.ts';

/** A box as the platform sealed it before master keys had ids: version 1 | iv | tag | body, the context as AAD. */
function legacySeal(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]);
}

const b64 = (key: Buffer) => key.toString('base64');

/** One sealed box of the database: where it is, how it is bound, what it must open to. */
interface Secret {
  column: string;
  table: string;
  keyColumn: string;
  key: string;
  context: string;
  plaintext: string;
}

/**
 * The master key ring end to end, on a database that holds secrets sealed before key ids and after: each role
 * refuses a wrong key at start; `mountain-admin rotate-master-key` killed in the middle and run again leaves every
 * secret sealed under the new key, which alone opens them all; a third run changes nothing.
 */
describe('master key rotation', { timeout: 300_000 }, () => {
  let h: Harness;
  /** The key the database was created with (the harness's), the new one, and one that is nobody's. */
  let oldKey: Buffer;
  const newKey = randomBytes(32);
  const wrongKey = randomBytes(32);
  const secrets: Secret[] = [];
  /** Everything the CLI and the processes printed: searched for secrets at the end. */
  const printed: string[] = [];
  const base = () => ({
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: h.databaseUrl,
    TOKEN_SIGNING_KEY: b64(h.tokenSigningKey),
  });

  before(async () => {
    h = await createHarness();
    oldKey = h.masterKey;
    const { project } = await h.project('Rotation');
    // The mnemonic the harness stored, written back as a box of before key ids.
    const { rows } = await h.db.query<{ ciphertext: Buffer }>(
      `SELECT ciphertext FROM deployment_secrets WHERE name = 'wallet-mnemonic'`,
    );
    const mnemonicContext = deploymentSecretContext('wallet-mnemonic');
    const mnemonic = open(oldKey, (rows[0] as { ciphertext: Buffer }).ciphertext, mnemonicContext);
    await h.db.query(`UPDATE deployment_secrets SET ciphertext = $1 WHERE name = 'wallet-mnemonic'`, [
      legacySeal(oldKey, mnemonic, mnemonicContext),
    ]);
    secrets.push({
      column: 'ciphertext',
      table: 'deployment_secrets',
      keyColumn: 'name',
      key: 'wallet-mnemonic',
      context: mnemonicContext,
      plaintext: mnemonic,
    });
    // The wallets' parent public key, which the harness stored beside the mnemonic.
    const xpubContext = deploymentSecretContext('wallet-xpub');
    const { rows: xpub } = await h.db.query<{ ciphertext: Buffer }>(
      `SELECT ciphertext FROM deployment_secrets WHERE name = 'wallet-xpub'`,
    );
    secrets.push({
      column: 'ciphertext',
      table: 'deployment_secrets',
      keyColumn: 'name',
      key: 'wallet-xpub',
      context: xpubContext,
      plaintext: open(oldKey, (xpub[0] as { ciphertext: Buffer }).ciphertext, xpubContext),
    });
    // Endpoints and subscriptions, half with a previous secret; every third box of before key ids.
    const boxes = (n: number, context: string, column: string, table: string, id: string) => {
      const plaintext = `whsec_${randomBytes(24).toString('base64')}`;
      secrets.push({ column, table, keyColumn: 'id', key: id, context, plaintext });
      return n % 3 === 0 ? legacySeal(oldKey, plaintext, context) : seal(oldKey, plaintext, context);
    };
    const endpoints: unknown[][] = [[], [], []];
    const subscriptions: unknown[][] = [[], [], []];
    for (let n = 0; n < 120; n += 1) {
      const id = randomUUID();
      const context = endpointSecretContext(id);
      endpoints[0]?.push(id);
      endpoints[1]?.push(boxes(n, context, 'secret', 'webhook_endpoints', id));
      endpoints[2]?.push(n % 2 ? boxes(n + 1, context, 'previous_secret', 'webhook_endpoints', id) : null);
      const subscriptionId = randomUUID();
      const subscription = secretContext(subscriptionId);
      subscriptions[0]?.push(subscriptionId);
      subscriptions[1]?.push(boxes(n, subscription, 'webhook_secret', 'event_notifier_subscriptions', subscriptionId));
      subscriptions[2]?.push(
        n % 2
          ? null
          : boxes(n + 2, subscription, 'previous_webhook_secret', 'event_notifier_subscriptions', subscriptionId),
      );
    }
    await h.db.query(
      `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret, secret_masked, previous_secret,
                                      previous_secret_expires_at)
       SELECT id, $4, 'https://example.com/hook', $5, secret, 'whsec_****', previous,
              CASE WHEN previous IS NULL THEN NULL ELSE now() + interval '1 day' END
         FROM unnest($1::uuid[], $2::bytea[], $3::bytea[]) AS t (id, secret, previous)`,
      [...endpoints, project.id, [TRANSACTION_EVENT_TYPES[0]]],
    );
    await h.db.query(
      `INSERT INTO event_notifier_subscriptions (id, project_id, subscription_name, network_id, address,
         formatted_abi_event, scan_enabled, initial_block_number, scan_interval, webhook_enabled, webhook_url,
         webhook_max_retries, webhook_secret, webhook_secret_masked, previous_webhook_secret,
         previous_webhook_secret_expires_at)
       SELECT id, $4, 'Rotation', 1337, '0x5FbDB2315678afecb367f032d93F642f64180aa3',
              'event Transfer(address indexed from, address indexed to, uint256 value)', false, 0, 60, true,
              'https://example.com/hook', 3, secret, 'whsec_****', previous,
              CASE WHEN previous IS NULL THEN NULL ELSE now() + interval '1 day' END
         FROM unnest($1::uuid[], $2::bytea[], $3::bytea[]) AS t (id, secret, previous)`,
      [...subscriptions, project.id],
    );
  });
  after(async () => {
    await h?.close();
  });

  /** Starts `main.ts --role <role>` as production does; stops it once it runs. Its exit code, what it printed. */
  async function startRole(role: 'api' | 'worker', env: Record<string, string>) {
    const child = spawn(process.execPath, [...(await bundledEntry('apps/api/src/main.ts')), '--role', role], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...base(), API_PORT: String(await freePort()), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let running = false;
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (!running && output.includes(`mountain ${role} running`)) {
        running = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    printed.push(output);
    return { running, code, output };
  }

  /** Runs `mountain-admin rotate-master-key` as an operator would; `killAfter`: SIGKILL at the first progress line. */
  function rotate(env: Record<string, string>, options: { killAfter?: boolean; json?: boolean } = {}) {
    const args = ['rotate-master-key', '--batch-size', '10', ...(options.json ? ['--json'] : [])];
    const child = spawn(ADMIN_BIN, args, {
      env: { ...process.env, ...base(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (options.killAfter && !killed && /re-sealed so far/.test(err)) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    return new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) =>
      child.once('close', (code, signal) => {
        printed.push(out, err);
        resolve({ code, signal, out, err });
      }),
    );
  }

  /** The box of each secret, as the database holds it now. */
  async function boxesNow(): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for (const s of secrets) {
      const { rows } = await h.db.query<{ box: Buffer }>(
        `SELECT ${s.column} AS box FROM ${s.table} WHERE ${s.keyColumn} = $1`,
        [s.key],
      );
      out.push((rows[0] as { box: Buffer }).box);
    }
    return out;
  }

  async function checkValue(): Promise<Buffer | undefined> {
    const { rows } = await h.db.query<{ ciphertext: Buffer }>(
      'SELECT ciphertext FROM deployment_secrets WHERE name = $1',
      [MASTER_KEY_CHECK],
    );
    return rows[0]?.ciphertext;
  }

  it('lists every sealed column of the schema (every bytea column but the hashes)', async () => {
    const { rows } = await h.db.query<{ name: string }>(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type = 'bytea' ORDER BY 1`,
    );
    const hashes = ['api_keys.secret_hash', 'console_links.code_hash', 'fireblocks_webhook_events.event_key'];
    const sealed = [...new Set(SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`))].sort();
    assert.deepEqual(
      rows.map((r) => r.name).filter((name) => !hashes.includes(name)),
      sealed,
    );
  });

  it('a role refuses a key that opens none of the secrets already stored (a database from before the check)', async () => {
    assert.equal(await checkValue(), undefined, 'no check value yet');
    const api = await startRole('api', { MASTER_KEY: b64(wrongKey) });
    assert.equal(api.running, false, api.output);
    assert.equal(api.code, 2, api.output);
    assert.match(api.output, /This database's secrets do not open under the configured master key/);
    assert.match(api.output, new RegExp(`id ${masterKeyId(wrongKey)}\\)`), 'names the key by its id');
    assert.equal(await checkValue(), undefined, 'a refused key stores no check value');
  });

  it('the database key starts a role, which stores the check value; then each role refuses another key', async () => {
    const worker = await startRole('worker', { MASTER_KEY: b64(oldKey) });
    assert.equal(worker.running, true, worker.output);
    const check = (await checkValue()) as Buffer;
    assert.equal(sealedKeyId(check), masterKeyId(oldKey), 'the check value is sealed under the database key');
    for (const role of ['api', 'worker'] as const) {
      const refused = await startRole(role, { MASTER_KEY: b64(wrongKey) });
      assert.equal(refused.running, false, `${role}: ${refused.output}`);
      assert.equal(refused.code, 2, `${role}: ${refused.output}`);
      assert.match(
        refused.output,
        new RegExp(
          `The master key is not this database's: its check value is sealed under master key ${masterKeyId(oldKey)}, ` +
            `which is not the configured master key \\(MASTER_KEY or MASTER_KEYS: id ${masterKeyId(wrongKey)}\\)`,
        ),
        role,
      );
      assert.doesNotMatch(refused.output, /\n\s+at /, `${role}: a message, not a stack`);
    }
  });

  it('rotation killed in the middle, then run again: every secret opens under the new key alone', async () => {
    const ring = { MASTER_KEYS: `${b64(newKey)},${b64(oldKey)}` };
    const killed = await rotate(ring, { killAfter: true });
    assert.equal(killed.signal, 'SIGKILL', `killed before it finished: ${killed.out}${killed.err}`);
    const halfway = await boxesNow();
    const underNew = halfway.filter((box) => sealedKeyId(box) === masterKeyId(newKey)).length;
    assert.ok(underNew >= 10 && underNew < secrets.length, `${underNew} of ${secrets.length} re-sealed when killed`);
    const bothKeys = masterKeyRing([newKey, oldKey]);
    halfway.forEach((box, i) => {
      const s = secrets[i] as Secret;
      assert.equal(open(bothKeys, box, s.context), s.plaintext, 'halfway, each secret opens under the ring');
    });
    assert.equal(sealedKeyId((await checkValue()) as Buffer), masterKeyId(oldKey), 'the check value waits');

    // Until the rotation has finished, the new key alone is refused: the old one still opens some secrets.
    const early = await startRole('worker', { MASTER_KEY: b64(newKey) });
    assert.equal(early.code, 2, early.output);
    assert.match(early.output, new RegExp(`sealed under master key ${masterKeyId(oldKey)}`));
    // The ring, new key first, starts.
    assert.equal((await startRole('api', ring)).running, true);

    const resumed = await rotate(ring, { json: true });
    assert.equal(resumed.code, 0, resumed.err);
    const report = JSON.parse(resumed.out);
    assert.equal(report.done, true);
    assert.equal(report.currentKeyId, masterKeyId(newKey));
    assert.deepEqual(report.keyIds, [masterKeyId(newKey), masterKeyId(oldKey)]);
    const resealed = report.columns.reduce((n: number, c: { resealed: number }) => n + c.resealed, 0);
    assert.equal(resealed, secrets.length - underNew + 1, 'the rest of the secrets, and the check value');
    for (const c of report.columns) assert.equal(c.remaining, 0, c.name);

    const rotated = await boxesNow();
    rotated.forEach((box, i) => {
      const s = secrets[i] as Secret;
      assert.equal(sealedKeyId(box), masterKeyId(newKey), `${s.table}.${s.column} of ${s.key}`);
      assert.equal(open(newKey, box, s.context), s.plaintext, `${s.table}.${s.column} of ${s.key} opens`);
      assert.throws(() => open(oldKey, box, s.context), 'the old key no longer opens it');
    });
    assert.equal(sealedKeyId((await checkValue()) as Buffer), masterKeyId(newKey));

    // A third run finds nothing to do and changes nothing.
    const again = await rotate(ring);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /^current master key [0-9a-f]{16} \(first of 2 keys\)$/m);
    assert.match(again.out, /^webhook_endpoints\.secret: 0 re-sealed now, 120 under the current key, 0 not$/m);
    assert.match(
      again.out,
      /^done: every secret is sealed under master key [0-9a-f]{16}; the keys after it can leave/m,
    );
    assert.doesNotMatch(again.err, /re-sealed so far/);
    assert.deepEqual(await boxesNow(), rotated, 'no box rewritten');

    // The new key alone now starts each role, and the old one alone is refused.
    for (const role of ['api', 'worker'] as const) {
      assert.equal((await startRole(role, { MASTER_KEY: b64(newKey) })).running, true, role);
    }
    assert.equal((await startRole('api', { MASTER_KEY: b64(oldKey) })).code, 2);
  });

  it('reports a secret that no configured key opens, and finishes once that key is listed', async () => {
    const stray = randomBytes(32);
    const id = randomUUID();
    const plaintext = `whsec_${randomBytes(24).toString('base64')}`;
    await h.db.query(
      `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret, secret_masked)
       SELECT $1, project_id, url, event_types, $2, secret_masked FROM webhook_endpoints LIMIT 1`,
      [id, seal(stray, plaintext, endpointSecretContext(id))],
    );
    const refused = await rotate({ MASTER_KEY: b64(newKey) });
    assert.equal(refused.code, 1, refused.out);
    assert.match(
      refused.out,
      new RegExp(`^webhook_endpoints\\.secret of ${id}: sealed under ${masterKeyId(stray)}, which no configured`, 'm'),
    );
    assert.match(refused.out, /^webhook_endpoints\.secret: 0 re-sealed now, 120 under the current key, 1 not$/m);
    assert.match(refused.err, /1 secret\(s\) are not under master key [0-9a-f]{16} yet: add the key that opens them/);
    const listed = await rotate({ MASTER_KEYS: `${b64(newKey)},${b64(stray)}` });
    assert.equal(listed.code, 0, listed.err);
    const { rows } = await h.db.query<{ secret: Buffer }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [id]);
    assert.equal(open(newKey, (rows[0] as { secret: Buffer }).secret, endpointSecretContext(id)), plaintext);
    secrets.push({
      column: 'secret',
      table: 'webhook_endpoints',
      keyColumn: 'id',
      key: id,
      context: endpointSecretContext(id),
      plaintext,
    });
  });

  it('printed no secret and no key: not the CLI, not the processes', () => {
    const text = printed.join('\n');
    assert.ok(text.includes('re-sealed so far'), 'the progress lines are searched too');
    for (const s of secrets) assert.ok(!text.includes(s.plaintext), `${s.table}.${s.column} of ${s.key}`);
    const words = (secrets[0] as Secret).plaintext.split(' ');
    assert.equal(words.length, 24, 'the mnemonic is the first secret');
    for (let i = 1; i < words.length; i += 1) {
      assert.ok(!text.includes(`${words[i - 1]} ${words[i]}`), 'no two words of the mnemonic');
    }
    for (const key of [oldKey, newKey, wrongKey]) {
      for (const form of [b64(key), key.toString('hex'), key.toString('base64url')]) {
        assert.ok(!text.includes(form.slice(0, 16)), 'no master key');
      }
    }
  });
});
