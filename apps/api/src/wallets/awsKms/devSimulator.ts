import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AwsKmsSettings } from './settings.ts';

/**
 * Where `npm start` leaves the endpoint, region and access key of the KMS simulator it runs (in DATA_DIR, while it
 * runs), so that the admin CLI of a development install reaches the same simulated keys as the API and worker.
 */
export const DEV_AWS_KMS_FILE = 'aws-kms-simulator.json';

interface DevKms {
  AWS_REGION: string;
  AWS_KMS_ENDPOINT: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Whether this environment names AWS credentials or a KMS endpoint of its own (then no simulator is used). */
export function hasOwnAwsKms(env: Record<string, string | undefined>): boolean {
  return Boolean(env.AWS_KMS_ENDPOINT || env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE || env.AWS_WEB_IDENTITY_TOKEN_FILE);
}

/** The simulator's endpoint and credentials while `npm start` runs it; none otherwise. Development only. */
export function devAwsKms(
  dataDir: string,
): { env: Record<string, string>; credentials: AwsKmsSettings['credentials'] } | undefined {
  const file = path.join(dataDir, DEV_AWS_KMS_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const dev = JSON.parse(readFileSync(file, 'utf8')) as DevKms;
    return {
      env: { AWS_REGION: dev.AWS_REGION, AWS_KMS_ENDPOINT: dev.AWS_KMS_ENDPOINT },
      credentials: { accessKeyId: dev.accessKeyId, secretAccessKey: dev.secretAccessKey },
    };
  } catch {
    return undefined;
  }
}
