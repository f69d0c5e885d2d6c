import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  CreateKeyCommand,
  DisableKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  ScheduleKeyDeletionCommand,
} from '@aws-sdk/client-kms';
import { getAddress, keccak256 } from 'viem';
import { CustodyProvisioningError, createProject } from '#api/projects/projects.ts';
import { createAwsKmsCustody } from '#api/wallets/awsKms/awsKmsCustody.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

describe('AWS KMS projects: new keys, adopted keys, refusals and a creation resumed', () => {
  let f: KmsPlatform;
  let kms: KMSClient;

  before(async () => {
    f = await startKmsPlatform();
    kms = new KMSClient({ region: f.sim.region, endpoint: f.sim.url, credentials: f.user });
  });
  after(async () => {
    kms?.destroy();
    await f?.stop();
  });

  /** A key made by the test itself, as a user would before adopting it. */
  const userKey = async (keySpec: 'ECC_SECG_P256K1' | 'ECC_NIST_P256' = 'ECC_SECG_P256K1') =>
    (await kms.send(new CreateKeyCommand({ KeySpec: keySpec, KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata as {
      KeyId: string;
      Arn: string;
    };

  /** The Ethereum address of a key, from its public key, worked out here independently of the platform. */
  const addressOf = async (keyId: string) => {
    const der = (await kms.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey as Uint8Array;
    const jwk = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }).export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]);
    return getAddress(`0x${keccak256(point).slice(-40)}`);
  };

  const nothingLeft = async (name: string) => {
    const projects = await f.h.db.query('SELECT 1 FROM projects WHERE project_name = $1', [name]);
    const reservations = await f.h.db.query('SELECT 1 FROM custody_provisionings WHERE project_name = $1', [name]);
    assert.equal(projects.rows.length + reservations.rows.length, 0, 'no project and no reservation left');
  };

  it('a new project’s wallets have the addresses of their keys’ public keys', async () => {
    const { project } = await f.h.project('New keys', { walletType: 'aws-kms' });
    const { rows } = await f.h.db.query<{ address: string; arn: string }>(
      `SELECT w.address, w.kms_key_arn AS arn FROM projects p JOIN system_wallets w ON w.id IN (p.wallet_mainnet_id, p.wallet_testnet_id)
        WHERE p.id = $1`,
      [project.id],
    );
    assert.equal(rows.length, 2);
    for (const row of rows) assert.equal(row.address, await addressOf(row.arn));
  });

  it('--kms-key-id adopts an enabled secp256k1 signing key (by id, ARN or alias) for both wallets, making no key', async () => {
    const key = await userKey();
    const keysBefore = f.sim.keys().length;
    const { project } = await f.h.project('Adopted', { walletType: 'aws-kms', kmsKeyId: key.Arn });
    assert.equal(f.sim.keys().length, keysBefore);
    const { rows } = await f.h.db.query<{ address: string; arn: string }>(
      `SELECT w.address, w.kms_key_arn AS arn FROM projects p JOIN system_wallets w ON w.id IN (p.wallet_mainnet_id, p.wallet_testnet_id)
        WHERE p.id = $1`,
      [project.id],
    );
    const address = await addressOf(key.KeyId);
    assert.deepEqual(
      rows.map((r) => [r.address, r.arn]),
      [
        [address, key.Arn],
        [address, key.Arn],
      ],
    );
  });

  it('refuses a key of another spec, a disabled key and one pending deletion, naming the key and why; nothing is left', async () => {
    const nist = await userKey('ECC_NIST_P256');
    const disabled = await userKey();
    await kms.send(new DisableKeyCommand({ KeyId: disabled.KeyId }));
    const deleted = await userKey();
    await kms.send(new ScheduleKeyDeletionCommand({ KeyId: deleted.KeyId, PendingWindowInDays: 7 }));
    const cases = [
      [nist.KeyId, /its key spec is ECC_NIST_P256, not ECC_SECG_P256K1/],
      [disabled.KeyId, /it is disabled/],
      [deleted.KeyId, /it is pending deletion/],
      ['alias/none-such', /does not exist/],
    ] as const;
    for (const [keyId, why] of cases) {
      const name = `Refused ${keyId}`;
      await assert.rejects(f.h.project(name, { walletType: 'aws-kms', kmsKeyId: keyId }), (error: Error) => {
        assert.ok(error instanceof CustodyProvisioningError, String(error));
        assert.match(error.message, /^The project was not created: /);
        assert.match(error.message, why);
        assert.ok(error.message.includes(keyId), error.message);
        return true;
      });
      await nothingLeft(name);
    }
  });

  it('an access key whose policy denies CreateKey fails with AWS’s message, and leaves nothing behind', async () => {
    const denied = f.sim.createUser({ name: 'no-create', deniedActions: ['CreateKey'] });
    const custody = createAwsKmsCustody({ ...f.settings, credentials: denied }, { retryBaseMs: 5 });
    const keysBefore = f.sim.keys().length;
    await assert.rejects(
      createProject(
        f.h.db,
        f.h.keys,
        { projectName: 'Denied', keyMode: 'test', walletType: 'aws-kms' },
        { awsKms: custody },
      ),
      /The project was not created: AWS KMS answered CreateKey with AccessDeniedException: User: arn:aws:iam::111122223333:user\/no-create is not authorized to perform: kms:CreateKey/,
    );
    assert.equal(f.sim.keys().length, keysBefore);
    await nothingLeft('Denied');
  });

  it('a creation cut short after CreateKey resumes with the key it made: no second key', async () => {
    f.sim.faults.set({ serverError: { count: 4, action: 'CreateAlias' } });
    const keysBefore = f.sim.keys().length;
    await assert.rejects(f.h.project('Resumed', { walletType: 'aws-kms' }), /run the same command again/);
    assert.equal(f.sim.keys().length, keysBefore + 1, 'the mainnet key was made, its alias not');
    const { rows } = await f.h.db.query<{ id: number }>(
      "SELECT project_id AS id FROM custody_provisionings WHERE project_name = 'Resumed'",
    );
    assert.equal(rows.length, 1, 'the reservation stays for the next run');
    f.sim.faults.clear();
    const { project } = await f.h.project('Resumed', { walletType: 'aws-kms' });
    assert.equal(project.id, rows[0]?.id, 'the reserved id');
    assert.equal(f.sim.keys().length, keysBefore + 2, 'one key per wallet, none twice');
    const aliases = f.sim.aliases().filter((a) => a.aliasName.startsWith(`alias/mountain-test-project-${project.id}-`));
    assert.equal(aliases.length, 2);
    // Run again by hand after it succeeded: a new project (another id), never the old keys.
    await nothingLeft('Never made');
  });
});
