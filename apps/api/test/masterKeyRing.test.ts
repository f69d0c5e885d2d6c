import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '#api/config/config.ts';
import { masterKeyId, masterKeyRing, open, SecretBoxError, seal, sealedKeyId } from '#api/crypto/secretBox.ts';

const b64 = (key: Buffer) => key.toString('base64');
const SIGNING = { TOKEN_SIGNING_KEY: b64(Buffer.alloc(32, 9)) };

/** The layout of before key ids: version 1 | iv | tag | body, the context as AAD. */
function legacySeal(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]);
}

describe('the master key ring: each box names its key', () => {
  const current = randomBytes(32);
  const previous = randomBytes(32);
  const ring = masterKeyRing([current, previous]);

  it('seals under the first key, naming it; opens a box of any key of the ring', () => {
    const box = seal(ring, 'secret one', 'ctx');
    assert.equal(sealedKeyId(box), masterKeyId(current));
    assert.equal(ring.current.id, masterKeyId(current));
    assert.match(ring.current.id, /^[0-9a-f]{16}$/);
    assert.equal(open(ring, box, 'ctx'), 'secret one');
    assert.equal(open(current, box, 'ctx'), 'secret one', 'a key alone is a ring of one');
    const old = seal(previous, 'secret two', 'ctx');
    assert.equal(sealedKeyId(old), masterKeyId(previous));
    assert.equal(open(ring, old, 'ctx'), 'secret two');
    assert.throws(() => open(ring, box, 'other'), SecretBoxError, 'bound to its context');
  });

  it("refuses a box of a key outside the ring, naming the box's key and the ring's by id, never by value", () => {
    const stranger = randomBytes(32);
    const box = seal(stranger, 'secret', 'ctx');
    assert.throws(
      () => open(ring, box, 'ctx'),
      (error: Error) =>
        error instanceof SecretBoxError &&
        error.message ===
          `A secret is sealed under master key ${masterKeyId(stranger)}, which is not among the configured master ` +
            `keys (ids ${masterKeyId(current)}, ${masterKeyId(previous)})` &&
        !error.message.includes(b64(stranger).slice(0, 12)),
    );
    // The id in the header chooses the key, and is authenticated: naming another key of the ring does not open it.
    const renamed = Buffer.from(seal(previous, 'secret', 'ctx'));
    Buffer.from(ring.current.id, 'hex').copy(renamed, 1);
    assert.throws(() => open(ring, renamed, 'ctx'), /sealed under master key [0-9a-f]{16} does not open/);
  });

  it('opens a box of before key ids under whichever key of the ring sealed it', () => {
    const legacy = legacySeal(previous, 'from before', 'ctx');
    assert.equal(sealedKeyId(legacy), undefined);
    assert.equal(open(ring, legacy, 'ctx'), 'from before');
    assert.equal(open(previous, legacy, 'ctx'), 'from before');
    assert.throws(() => open(current, legacy, 'ctx'), /opens under none of the 1 configured master key/);
    assert.throws(() => open(ring, legacy, 'other'), SecretBoxError, 'bound to its context');
  });

  it('a ring has at least one key, each once', () => {
    assert.throws(() => masterKeyRing([]), SecretBoxError);
    assert.throws(() => masterKeyRing([current, current]), /in the ring twice/);
  });
});

describe('MASTER_KEYS: the current key first, then the old ones', () => {
  const [newKey, oldKey] = [randomBytes(32), randomBytes(32)];
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ NODE_ENV: 'production', DEPLOYMENT_NAME: 'keys', ...SIGNING, ...env });
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      for (const key of [newKey, oldKey]) assert.ok(!error.message.includes(b64(key).slice(0, 12)), 'no key value');
      return error.problems.filter((p) => p.includes('MASTER_KEY'));
    }
    assert.fail('the configuration was accepted');
  };

  it('reads the ring in order; MASTER_KEY is a ring of one', () => {
    const listed = loadConfig({ NODE_ENV: 'test', ...SIGNING, MASTER_KEYS: `${b64(newKey)}, ${b64(oldKey)}` });
    assert.deepEqual(
      listed.masterKey.keys.map((k) => k.key),
      [newKey, oldKey],
    );
    assert.equal(listed.masterKey.current.id, masterKeyId(newKey));
    const single = loadConfig({ NODE_ENV: 'production', DEPLOYMENT_NAME: 'keys', ...SIGNING, MASTER_KEY: b64(oldKey) });
    assert.deepEqual(
      single.masterKey.keys.map((k) => k.key),
      [oldKey],
    );
  });

  it('reads MASTER_KEYS_FILE, and refuses it beside MASTER_KEYS', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mountain-master-keys-'));
    try {
      const file = path.join(dir, 'master_keys');
      writeFileSync(file, `${b64(newKey)},${b64(oldKey)}\n`);
      const config = loadConfig({
        NODE_ENV: 'production',
        DEPLOYMENT_NAME: 'keys',
        ...SIGNING,
        MASTER_KEYS_FILE: file,
      });
      assert.deepEqual(
        config.masterKey.keys.map((k) => k.key),
        [newKey, oldKey],
      );
      assert.deepEqual(problems({ MASTER_KEYS_FILE: file, MASTER_KEYS: b64(newKey) }), [
        'set MASTER_KEYS or MASTER_KEYS_FILE, not both',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses MASTER_KEY beside MASTER_KEYS, a key twice, a wrong key by position, and neither in production', () => {
    assert.deepEqual(problems({ MASTER_KEY: b64(oldKey), MASTER_KEYS: `${b64(newKey)},${b64(oldKey)}` }), [
      'MASTER_KEY and MASTER_KEYS are both set: set only MASTER_KEYS, the current key first (list MASTER_KEY after ' +
        'it until mountain-admin rotate-master-key has re-sealed every secret)',
    ]);
    assert.deepEqual(problems({ MASTER_KEYS: `${b64(newKey)},${b64(oldKey)},${b64(newKey)}` }), [
      'MASTER_KEYS: keys 1 and 3 are the same key',
    ]);
    assert.deepEqual(problems({ MASTER_KEYS: `${b64(newKey)},,${b64(oldKey).slice(4)}` }), [
      'MASTER_KEYS: key 2 of 3 is empty',
      'MASTER_KEYS: key 3 of 3 must be 32 bytes encoded as base64 (got 29 bytes)',
    ]);
    assert.deepEqual(problems({}), ['MASTER_KEY or MASTER_KEYS is required in production (32 random bytes, base64)']);
  });
});
