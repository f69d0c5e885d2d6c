import Type from 'typebox';
import { component } from '#api/schemas/components.ts';
import { type Custodian, configured, type NetworkType } from '../custodian.ts';
import type { AwsKmsCustody } from './awsKmsCustody.ts';
import { devAwsKms, hasOwnAwsKms } from './devSimulator.ts';
import { KmsCallError, KmsKeyRefusedError } from './kmsApi.ts';
import type { WalletKey } from './kmsKeys.ts';
import { AWS_KMS_VARIABLES, type AwsKmsSettings, parseAwsKmsSettings } from './settings.ts';

const NOT_CONFIGURED =
  'AWS KMS custody is not configured for this deployment: set AWS_REGION (and credentials the AWS SDK finds; see the KMS wallets page of the docs), or use from-mnemonic wallets';

const NETWORK_TYPES = ['mainnet', 'testnet'] as const;

/**
 * aws-kms: a signer whose keys never leave KMS. A project's wallets are one key each, named by its alias
 * (`alias/mountain-<deployment>-project-<id>-<network type>`) and tagged with the project, or one existing key for
 * both (`kmsKeyId`, checked: enabled, ECC_SECG_P256K1, SIGN_VERIFY). A creation run again after a crash or a timeout
 * finds each key by its alias, or by the ARN recorded as soon as KMS made it, instead of making a second one.
 */
export const awsKmsCustodian: Custodian<'awsKms', AwsKmsSettings, AwsKmsCustody> = {
  type: 'aws-kms',
  refColumn: 'kms_key_arn',
  configuration: {
    notConfigured: NOT_CONFIGURED,
    name: 'awsKms',
    variables: AWS_KMS_VARIABLES,
    settings({ env, nodeEnv, production, dataDir }, problems) {
      // In development, the simulated KMS, when the environment names no AWS credentials or endpoint of its own.
      const devKms = nodeEnv === 'development' && !hasOwnAwsKms(env) ? devAwsKms(dataDir) : undefined;
      return parseAwsKmsSettings(devKms ? { ...env, ...devKms.env } : env, production, problems, devKms?.credentials);
    },
    async client(settings) {
      const { createAwsKmsCustody } = await import('./awsKmsCustody.ts');
      return createAwsKmsCustody(settings);
    },
  },
  listingKey: 'kmsKeyArn',
  adoptsKey: true,
  async provision(request, { client }) {
    const kms = configured(client, NOT_CONFIGURED);
    const wallet = (key: WalletKey) => ({ address: key.address, ref: key.arn });
    if (request.kmsKeyId) {
      const key = wallet(await kms.adopt(request.kmsKeyId));
      return { mainnet: key, testnet: key };
    }
    const made = await request.made();
    const owner = request.ownerType === 'shared' ? 'shared' : (request.projectId as number);
    const keys: Partial<Record<NetworkType, { address: string; ref: string }>> = {};
    for (const networkType of NETWORK_TYPES) {
      const key = await kms.provision(
        kms.aliasName(owner, networkType),
        {
          'mountain:deployment': kms.settings.deployment,
          'mountain:project': String(owner),
          'mountain:project-name': request.projectName.slice(0, 256),
          'mountain:network-type': networkType,
        },
        made[networkType],
        (arn) => request.record(networkType, arn),
      );
      keys[networkType] = wallet(key);
    }
    return keys as Record<NetworkType, { address: string; ref: string }>;
  },
  async addWallets(request, { client }) {
    // A key each, named by its pool position: a run again finds it by its alias.
    const kms = configured(client, NOT_CONFIGURED);
    const made = [];
    for (const position of request.positions) {
      const key = await kms.provision(
        `${kms.aliasName(request.projectId, request.networkType)}-${position}`,
        {
          'mountain:deployment': kms.settings.deployment,
          'mountain:project': String(request.projectId),
          'mountain:project-name': request.projectName.slice(0, 256),
          'mountain:network-type': request.networkType,
          'mountain:pool-position': String(position),
        },
        undefined,
        async () => {},
      );
      made.push({ address: key.address, ref: key.arn });
    }
    return made;
  },
  undo(error) {
    const refused =
      error instanceof KmsKeyRefusedError || (error instanceof KmsCallError && error.failure !== 'unavailable');
    return refused ? { refused } : { refused, resumesWith: 'the same keys' };
  },
  sends: {
    signer(wallet, { client }) {
      const kms = configured(client, NOT_CONFIGURED);
      if (!wallet.custodyRef) throw new Error(`Wallet ${wallet.id} has no KMS key`);
      return kms.account({ id: wallet.id, address: wallet.address, keyArn: wallet.custodyRef });
    },
  },
  view: {
    sql: (w) =>
      `json_build_object('provider', 'aws-kms', 'keyArn', ${w}.kms_key_arn, 'keyId', split_part(${w}.kms_key_arn, ':key/', 2))`,
    schema: component(
      'KmsWalletCustody',
      Type.Object(
        {
          provider: Type.Literal('aws-kms', { description: 'The key service that keeps the key.' }),
          keyArn: Type.String({ description: 'The ARN of the AWS KMS key that signs for the wallet.' }),
          keyId: Type.String({ description: 'The key id (the last part of the ARN).' }),
        },
        { description: 'The AWS KMS key of an aws-kms wallet.' },
      ),
    ),
  },
};
