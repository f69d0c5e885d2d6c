import { code, type VariableDefinition } from '#api/config/parse.ts';

/** What a deployment needs to keep its system wallets' keys in AWS KMS. */
export interface AwsKmsSettings {
  /** The key's region (AWS_REGION). */
  readonly region: string;
  /** A KMS-compatible endpoint instead of AWS's own (AWS_KMS_ENDPOINT): a VPC endpoint, a local one. */
  readonly endpoint: string | undefined;
  /**
   * Credentials handed to the client. Undefined in a deployment: the SDK's own chain finds them (AWS_ACCESS_KEY_ID
   * and AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE, web identity, ECS and EC2 instance roles).
   */
  readonly credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
  /** Names this deployment's keys: `alias/mountain-<deployment>-project-<id>-<network type>` (DEPLOYMENT_NAME). */
  readonly deployment: string;
  /** Sign requests of one wallet in flight at once (AWS_KMS_SIGN_CONCURRENCY). */
  readonly signConcurrency: number;
}

type Env = Record<string, string | undefined>;

const DEFAULT_SIGN_CONCURRENCY = 16;

/** AWS KMS custody's variables, as the configuration reference lists them (through its registry entry). */
export const AWS_KMS_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['AWS_REGION'],
    default: '— (under `npm start`: a simulated KMS)',
    meaning:
      'The region of the AWS KMS keys of `--wallet-type aws-kms` wallets: the key never leaves KMS, which signs ' +
      'each transaction ([AWS KMS wallets](/docs/services/mountain-transactions/kms-wallets)). Unset (with no ' +
      '`AWS_KMS_ENDPOINT`), no project can use KMS, and `npm start` runs a simulated KMS instead (its banner says so).',
  },
  {
    names: [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
    ],
    default: "— (the AWS SDK's chain: these, a profile, web identity, ECS and EC2 roles)",
    meaning:
      "KMS credentials, read by the AWS SDK's own chain, not by Mountain: keys, a profile, a web identity token, " +
      'ECS and EC2 roles. Under `npm start`, any of `AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, ' +
      '`AWS_WEB_IDENTITY_TOKEN_FILE` (or `AWS_KMS_ENDPOINT`) set means no simulated KMS is started.',
  },
  {
    names: ['AWS_KMS_ENDPOINT'],
    default: "AWS's endpoint of the region",
    meaning: 'A KMS-compatible endpoint (a VPC endpoint, a local one); https in production.',
  },
  {
    names: ['AWS_KMS_SIGN_CONCURRENCY'],
    default: code(DEFAULT_SIGN_CONCURRENCY),
    meaning:
      "Sign requests one wallet has in flight at once: KMS answers each in tens of milliseconds, so a wallet's " +
      'transactions are signed concurrently once their nonces are fixed.',
  },
];

/**
 * AWS KMS custody is on when AWS_REGION or AWS_KMS_ENDPOINT is set; undefined otherwise. The credentials are the
 * SDK's business (its default chain); only a development install's simulator gives them here (`devCredentials`).
 * Problems go to `problems`; a secret is never quoted in one.
 */
export function parseAwsKmsSettings(
  env: Env,
  production: boolean,
  problems: string[],
  devCredentials?: AwsKmsSettings['credentials'],
): AwsKmsSettings | undefined {
  const region = env.AWS_REGION?.trim();
  const endpointText = env.AWS_KMS_ENDPOINT?.trim();
  if (!region && !endpointText) return undefined;
  if (!region) {
    problems.push('AWS_KMS_ENDPOINT is set without AWS_REGION: set the region the KMS keys live in');
  } else if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(region)) {
    problems.push(`AWS_REGION must be an AWS region such as us-east-1 (got "${region}")`);
  }
  let endpoint: string | undefined;
  if (endpointText) {
    let url: URL | undefined;
    try {
      url = new URL(endpointText);
    } catch {}
    if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password) {
      problems.push(
        'AWS_KMS_ENDPOINT must be an http(s) URL without credentials, such as https://kms.us-east-1.amazonaws.com',
      );
    } else if (production && url.protocol !== 'https:') {
      problems.push('AWS_KMS_ENDPOINT must be https in production');
    } else endpoint = endpointText.replace(/\/+$/, '');
  }
  const deployment = env.DEPLOYMENT_NAME?.trim() || (production ? '' : 'dev');
  if (!deployment) {
    problems.push(
      'DEPLOYMENT_NAME is required in production with AWS KMS custody: it names the keys (alias/mountain-<DEPLOYMENT_NAME>-project-<id>-<mainnet|testnet>)',
    );
  } else if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(deployment)) {
    problems.push(`DEPLOYMENT_NAME must be 1 to 32 lowercase letters, digits and dashes (got "${deployment}")`);
  }
  let signConcurrency = DEFAULT_SIGN_CONCURRENCY;
  const concurrency = env.AWS_KMS_SIGN_CONCURRENCY;
  if (concurrency !== undefined && concurrency !== '') {
    signConcurrency = Number(concurrency);
    if (!Number.isInteger(signConcurrency) || signConcurrency < 1 || signConcurrency > 256) {
      problems.push('AWS_KMS_SIGN_CONCURRENCY must be an integer from 1 to 256');
    }
  }
  return Object.freeze({
    region: region ?? '',
    endpoint,
    credentials: devCredentials,
    deployment,
    signConcurrency,
  });
}
