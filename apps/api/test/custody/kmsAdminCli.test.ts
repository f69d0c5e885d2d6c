import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminCliBeside } from '../helpers/adminCli.ts';
import { type KmsPlatform, startKmsPlatform } from './kmsFixture.ts';

describe('mountain-admin with AWS KMS configured through the AWS SDK’s environment', () => {
  let f: KmsPlatform;
  before(async () => {
    f = await startKmsPlatform();
  });
  after(async () => {
    await f?.stop();
  });

  // The credentials reach the command as the SDK's own chain reads them, from AWS_ACCESS_KEY_ID and
  // AWS_SECRET_ACCESS_KEY.
  const admin = adminCliBeside(
    () => f.h,
    () => f.anvil.url,
    () => ({
      AWS_REGION: f.sim.region,
      AWS_KMS_ENDPOINT: f.sim.url,
      AWS_ACCESS_KEY_ID: f.user.accessKeyId,
      AWS_SECRET_ACCESS_KEY: f.user.secretAccessKey,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      DEPLOYMENT_NAME: 'cli',
    }),
  );

  it('create-project --wallet-type aws-kms makes the keys; list-projects shows their ARNs', async () => {
    const created = await admin('create-project', '--name', 'Keyed', '--wallet-type', 'aws-kms', '--json');
    assert.equal(created.code, 0, created.err);
    const { project } = JSON.parse(created.out);
    const alias = f.sim.aliases().find((a) => a.aliasName === `alias/mountain-cli-project-${project.id}-mainnet`);
    assert.ok(alias, JSON.stringify(f.sim.aliases()));
    const arn = f.sim.keys().find((k) => k.keyId === alias.targetKeyId)?.arn;
    const listed = await admin('list-projects', '--json');
    const entry = JSON.parse(listed.out).projects.find((p: { id: number }) => p.id === project.id);
    assert.deepEqual(
      { type: entry.walletMainnet.type, kmsKeyArn: entry.walletMainnet.kmsKeyArn },
      { type: 'aws-kms', kmsKeyArn: arn },
    );
    const table = await admin('list-projects');
    assert.match(
      table.out,
      new RegExp(`^${project.id} +Keyed .* aws-kms \\(key ${arn?.replace(/[/.]/g, '\\$&')}, testnet `, 'm'),
    );
  });

  it('--kms-key-id of a disabled key fails with the reason (exit 1); a malformed one is a usage error (exit 2)', async () => {
    const created = await admin('create-project', '--name', 'Made', '--wallet-type', 'aws-kms', '--json');
    const { project } = JSON.parse(created.out);
    const alias = `alias/mountain-cli-project-${project.id}-testnet`;
    const keyId = f.sim.aliases().find((a) => a.aliasName === alias)?.targetKeyId as string;
    const { DisableKeyCommand, KMSClient } = await import('@aws-sdk/client-kms');
    const kms = new KMSClient({ region: f.sim.region, endpoint: f.sim.url, credentials: f.user });
    await kms.send(new DisableKeyCommand({ KeyId: keyId }));
    kms.destroy();
    const refused = await admin(
      'create-project',
      '--name',
      'Adopter',
      '--wallet-type',
      'aws-kms',
      '--kms-key-id',
      alias,
    );
    assert.equal(refused.code, 1);
    assert.match(
      refused.err,
      /^error: The project was not created: The KMS key alias\/mountain-cli-project-\d+-testnet \(arn:aws:kms:[^)]+\) cannot be a wallet's key: it is disabled/m,
    );
    const { rows } = await f.h.db.query("SELECT 1 FROM projects WHERE project_name = 'Adopter'");
    assert.equal(rows.length, 0);
    const malformed = await admin(
      'create-project',
      '--name',
      'Bad',
      '--wallet-type',
      'aws-kms',
      '--kms-key-id',
      'not a key',
    );
    assert.equal(malformed.code, 2);
    assert.match(malformed.err, /--kms-key-id must be a KMS key id/);
    const without = await admin('create-project', '--name', 'Bad', '--kms-key-id', keyId);
    assert.equal(without.code, 2);
    assert.match(without.err, /--kms-key-id goes with --wallet-type aws-kms/);
  });
});
