import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseFireblocksSettings } from '#api/wallets/fireblocks/settings.ts';

const pem = (bits: number) =>
  generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const RSA_2048 = pem(2048);
const dir = mkdtempSync(path.join(tmpdir(), 'fireblocks-settings-'));
const file = (name: string, content: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, content);
  return at;
};

function parse(env: Record<string, string>, production = false) {
  const problems: string[] = [];
  const settings = parseFireblocksSettings(env, production, problems);
  return { settings, problems };
}

describe('FIREBLOCKS_* configuration', () => {
  it('is off without FIREBLOCKS_API_KEY, and says so when its other variables are set alone', () => {
    assert.deepEqual(parse({}), { settings: undefined, problems: [] });
    const { problems } = parse({ FIREBLOCKS_SECRET_KEY_PATH: '/x' });
    assert.match(problems[0] ?? '', /FIREBLOCKS_SECRET_KEY_PATH set without FIREBLOCKS_API_KEY/);
  });

  it('reads the key from a file or from the variable, with the documented defaults', () => {
    const fromFile = parse({ FIREBLOCKS_API_KEY: 'key-1', FIREBLOCKS_SECRET_KEY_PATH: file('ok.pem', RSA_2048) });
    assert.deepEqual(fromFile.problems, []);
    assert.equal(fromFile.settings?.secretKey, RSA_2048);
    assert.equal(fromFile.settings?.baseUrl, 'https://api.fireblocks.io/v1');
    assert.deepEqual(fromFile.settings?.assetIds, { 1: 'ETH', 11155111: 'ETH_TEST5' });
    assert.deepEqual(fromFile.settings?.assetIdsSet, [], 'the defaults are not set by a variable');
    assert.equal(fromFile.settings?.deployment, 'dev');
    const inline = parse({
      FIREBLOCKS_API_KEY: 'key-1',
      FIREBLOCKS_SECRET_KEY: RSA_2048,
      FIREBLOCKS_BASE_URL: 'https://sandbox-api.fireblocks.io/v1/',
      FIREBLOCKS_ASSET_ID_137: 'MATIC_POLYGON',
    });
    assert.deepEqual(inline.problems, []);
    assert.equal(inline.settings?.baseUrl, 'https://sandbox-api.fireblocks.io/v1');
    assert.equal(inline.settings?.assetIds[137], 'MATIC_POLYGON');
    assert.deepEqual(inline.settings?.assetIdsSet, [137]);
  });

  it('refuses both key variables, a short RSA key, a key that is not RSA and a file that is not a key: naming the variable, never the value', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const cases: [Record<string, string>, RegExp][] = [
      [
        { FIREBLOCKS_SECRET_KEY: RSA_2048, FIREBLOCKS_SECRET_KEY_PATH: file('both.pem', RSA_2048) },
        /FIREBLOCKS_SECRET_KEY and FIREBLOCKS_SECRET_KEY_PATH are both set/,
      ],
      [
        { FIREBLOCKS_SECRET_KEY_PATH: file('short.pem', pem(1024)) },
        /FIREBLOCKS_SECRET_KEY_PATH must be an RSA private key of at least 2048 bits/,
      ],
      [{ FIREBLOCKS_SECRET_KEY: ec }, /FIREBLOCKS_SECRET_KEY must be an RSA private key of at least 2048 bits/],
      [{ FIREBLOCKS_SECRET_KEY: 'hunter2-not-a-key' }, /FIREBLOCKS_SECRET_KEY is not a PEM private key/],
      [
        { FIREBLOCKS_SECRET_KEY_PATH: path.join(dir, 'missing.pem') },
        /FIREBLOCKS_SECRET_KEY_PATH: the file cannot be read \(ENOENT\)/,
      ],
      [{}, /FIREBLOCKS_API_KEY is set without its key/],
    ];
    for (const [env, expected] of cases) {
      const { problems } = parse({ FIREBLOCKS_API_KEY: 'key-1', ...env });
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.match(problems[0] as string, expected);
      assert.ok(!(problems[0] as string).includes('hunter2'), 'no value quoted');
      assert.ok(!(problems[0] as string).includes('PRIVATE KEY'), 'no key quoted');
    }
  });

  it('needs DEPLOYMENT_NAME and https in production, and checks asset ids and the webhook key', () => {
    const { problems } = parse(
      {
        FIREBLOCKS_API_KEY: 'key-1',
        FIREBLOCKS_SECRET_KEY: RSA_2048,
        FIREBLOCKS_BASE_URL: 'http://fireblocks.internal/v1',
        FIREBLOCKS_ASSET_ID_1337: 'not an asset!',
        FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH: file('webhook.pem', 'not a key'),
      },
      true,
    );
    assert.equal(problems.length, 4, JSON.stringify(problems));
    assert.match(problems.join('\n'), /FIREBLOCKS_BASE_URL must be https in production/);
    assert.match(problems.join('\n'), /FIREBLOCKS_ASSET_ID_1337 must be a Fireblocks asset id/);
    assert.match(problems.join('\n'), /DEPLOYMENT_NAME is required in production/);
    assert.match(problems.join('\n'), /FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH is not an RSA public key/);
  });
});
