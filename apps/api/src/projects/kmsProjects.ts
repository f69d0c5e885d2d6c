import type { Db, Queryable } from '#api/db/db.ts';
import type { AwsKmsCustody } from '#api/wallets/awsKms/awsKmsCustody.ts';
import { KmsCallError } from '#api/wallets/awsKms/kmsApi.ts';
import { KmsKeyRefusedError, type WalletKey } from '#api/wallets/awsKms/kmsKeys.ts';
import type { OwnerType } from '#api/wallets/signer.ts';
import {
  CustodyProvisioningError,
  insertProject,
  type NewProject,
  type Project,
  reserveProjectId,
} from './projectRows.ts';

const NETWORK_TYPES = ['mainnet', 'testnet'] as const;
type NetworkType = (typeof NETWORK_TYPES)[number];

/**
 * A project whose wallets sign with AWS KMS keys: one key per wallet, named by its alias
 * (`alias/mountain-<deployment>-project-<id>-<network type>`) and tagged with the project, or one existing key for
 * both (`kmsKeyId`, checked: enabled, ECC_SECG_P256K1, SIGN_VERIFY). The project's id is reserved first
 * (custody_provisionings), so a creation run again after a crash or a timeout finds each key by its alias, or by
 * the ARN recorded as soon as KMS made it, instead of making a second one. The project row, its wallets (address
 * from each key's public key) and its API key are written in one transaction once KMS has answered every call; a
 * refusal (AccessDeniedException, a key that cannot sign…) ends the reservation and leaves nothing behind.
 */
export async function createAwsKmsProject(
  db: Db,
  kms: AwsKmsCustody,
  input: NewProject,
  ownerType: OwnerType,
): Promise<{ project: Project; apiKey: string }> {
  const projectId = await reserveProjectId(db, input, ownerType);
  const keys: Partial<Record<NetworkType, WalletKey>> = {};
  try {
    if (input.kmsKeyId) {
      const key = await kms.adopt(input.kmsKeyId);
      keys.mainnet = key;
      keys.testnet = key;
    } else {
      const { rows } = await db.query<{ refs: Partial<Record<NetworkType, string>> }>(
        'SELECT custody_refs AS refs FROM custody_provisionings WHERE project_id = $1',
        [projectId],
      );
      const made = rows[0]?.refs ?? {};
      for (const networkType of NETWORK_TYPES) {
        const owner = ownerType === 'shared' ? 'shared' : projectId;
        keys[networkType] = await kms.provision(
          kms.aliasName(owner, networkType),
          {
            'mountain:deployment': kms.settings.deployment,
            'mountain:project': ownerType === 'shared' ? 'shared' : String(projectId),
            'mountain:project-name': input.projectName.slice(0, 256),
            'mountain:network-type': networkType,
          },
          made[networkType],
          async (arn) => {
            await db.query(
              `UPDATE custody_provisionings SET custody_refs = custody_refs || jsonb_build_object($2::text, $3::text)
                WHERE project_id = $1`,
              [projectId, networkType, arn],
            );
          },
        );
      }
    }
  } catch (error) {
    const refused =
      error instanceof KmsKeyRefusedError || (error instanceof KmsCallError && error.failure !== 'unavailable');
    if (refused) await db.query('DELETE FROM custody_provisionings WHERE project_id = $1', [projectId]);
    throw new CustodyProvisioningError(
      `The project was not created: ${(error as Error).message}${refused ? '' : ' (run the same command again: it resumes with the same keys)'}`,
      { cause: error },
    );
  }
  return db.transaction(async (client) => {
    const mainnet = await insertWallet(client, 'mainnet', ownerType, keys.mainnet as WalletKey);
    const testnet = await insertWallet(client, 'testnet', ownerType, keys.testnet as WalletKey);
    const created = await insertProject(client, projectId, input, mainnet, testnet);
    await client.query('DELETE FROM custody_provisionings WHERE project_id = $1', [projectId]);
    return created;
  });
}

async function insertWallet(client: Queryable, networkType: NetworkType, ownerType: OwnerType, key: WalletKey) {
  if (ownerType === 'shared') {
    await client.query(
      `INSERT INTO system_wallets (address, type, network_type, owner_type, kms_key_arn)
       VALUES ($1, 'aws-kms', $2, 'shared', $3) ON CONFLICT DO NOTHING`,
      [key.address, networkType, key.arn],
    );
    const { rows } = await client.query<{ id: number }>(
      `SELECT id FROM system_wallets WHERE owner_type = 'shared' AND network_type = $1 AND type = 'aws-kms'`,
      [networkType],
    );
    return (rows[0] as { id: number }).id;
  }
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO system_wallets (address, type, network_type, owner_type, kms_key_arn)
     VALUES ($1, 'aws-kms', $2, 'dedicated', $3) RETURNING id`,
    [key.address, networkType, key.arn],
  );
  return (rows[0] as { id: number }).id;
}
