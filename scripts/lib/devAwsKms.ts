import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startKmsSimulator } from '@mountain/testkit/awsKms/startKmsSimulator.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { DEV_AWS_KMS_FILE } from '../../apps/api/src/wallets/awsKms/devSimulator.ts';

const REGION = 'us-east-1';

/**
 * `npm start` without AWS credentials or AWS_KMS_ENDPOINT: a KMS simulator (packages/testkit), so that an aws-kms
 * project can be made and used with no AWS account. Its access key is made once in DATA_DIR (mode 0600) and
 * registered with it at every start; its keys and aliases are kept in DATA_DIR too. The API and the worker get the
 * AWS_* variables (the SDK's credential chain reads them); the admin CLI finds the simulator through
 * DEV_AWS_KMS_FILE (development only). Returns the variables and stop().
 */
export async function startDevAwsKms(dataDir: string) {
  const userFile = path.join(dataDir, 'aws-kms-dev-user.json');
  if (!existsSync(userFile)) {
    const user = {
      accessKeyId: `AKIADEV${randomBytes(7).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(30).toString('base64'),
    };
    writeFileSync(userFile, `${JSON.stringify(user)}\n`, { mode: 0o600 });
  }
  const user = JSON.parse(readFileSync(userFile, 'utf8')) as { accessKeyId: string; secretAccessKey: string };
  const sim = await startKmsSimulator({
    region: REGION,
    statePath: path.join(dataDir, 'aws-kms-simulator-state.json'),
    port: await freePort(),
  });
  sim.registerUser({ ...user, userArn: `arn:aws:iam::${sim.accountId}:user/mountain-dev` });
  const env = {
    AWS_REGION: REGION,
    AWS_KMS_ENDPOINT: sim.url,
    AWS_ACCESS_KEY_ID: user.accessKeyId,
    AWS_SECRET_ACCESS_KEY: user.secretAccessKey,
  };
  writeFileSync(
    path.join(dataDir, DEV_AWS_KMS_FILE),
    `${JSON.stringify({ AWS_REGION: REGION, AWS_KMS_ENDPOINT: sim.url, ...user }, null, 2)}\n`,
    { mode: 0o600 },
  );
  return { env, url: sim.url, stop: () => sim.stop() };
}
