import type { KeyMode } from '#api/auth/apiKeys.ts';
import type { Db, Queryable } from '#api/db/db.ts';
import { validationError } from '#api/errors/ApiError.ts';
import { FireblocksCallError } from '#api/wallets/fireblocks/fireblocksApi.ts';
import type { FireblocksCustody } from '#api/wallets/fireblocks/fireblocksCustody.ts';
import type { WalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import {
  AWS_KMS_NOT_CONFIGURED,
  FIREBLOCKS_NOT_CONFIGURED,
  type OwnerType,
  type RemoteCustodians,
  WalletProviderNotConfiguredError,
  type WalletType,
} from '#api/wallets/signer.ts';
import { createAwsKmsProject } from './kmsProjects.ts';
import {
  CustodyProvisioningError,
  insertKey,
  insertProject,
  type NewProject,
  type Project,
  reserveProjectId,
  SHARED_WALLET_RISK,
} from './projectRows.ts';

export { CustodyProvisioningError, type NewProject, type Project };

export interface SystemWallet {
  id: number;
  address: string;
  type: WalletType;
  networkType: 'mainnet' | 'testnet';
  ownerType: OwnerType;
  custody:
    | { provider: 'fireblocks'; vaultAccountId: string }
    | { provider: 'aws-kms'; keyArn: string; keyId: string }
    | null;
}

export interface ProjectDetail {
  project: Project;
  mSystemWalletMainnet: SystemWallet;
  mSystemWalletTestnet: SystemWallet;
}

const SHARED_INDEX = { mainnet: 0, testnet: 1 } as const;

/**
 * Creates a project with its two system wallets and its first API key, in one transaction. The wallets are the
 * project's own (`dedicated`) unless `ownerType: 'shared'` comes with `allowSharedWallet: true`; shared without it
 * is refused with a 400 naming `allowSharedWallet`.
 */
export async function createProject(
  db: Db,
  keys: WalletKeys,
  input: NewProject,
  custodians: RemoteCustodians = {},
): Promise<{ project: Project; apiKey: string }> {
  const ownerType = input.ownerType ?? 'dedicated';
  if (ownerType === 'shared' && input.allowSharedWallet !== true) {
    throw validationError([
      {
        field: 'allowSharedWallet',
        message: `must be true to put a project on the shared wallet: ${SHARED_WALLET_RISK}`,
      },
    ]);
  }
  if (input.walletType === 'fireblocks') {
    if (!custodians.fireblocks) throw new WalletProviderNotConfiguredError(FIREBLOCKS_NOT_CONFIGURED);
    return createFireblocksProject(db, custodians.fireblocks, input, ownerType);
  }
  if (input.walletType === 'aws-kms') {
    if (!custodians.awsKms) throw new WalletProviderNotConfiguredError(AWS_KMS_NOT_CONFIGURED);
    return createAwsKmsProject(db, custodians.awsKms, input, ownerType);
  }
  return db.transaction(async (client) => {
    const mainnet = await walletFor(client, keys, 'mainnet', ownerType);
    const testnet = await walletFor(client, keys, 'testnet', ownerType);
    return insertProject(client, undefined, input, mainnet, testnet);
  });
}

/**
 * A project whose wallets live in a Fireblocks vault account (`mountain-<deployment>-project-<id>`, or the one
 * shared vault account). The project's id is reserved first (custody_provisionings), so the vault is named before
 * anything exists, and a create-project run again after a crash or a timeout (same name, wallet type and owner
 * type) takes the same id and finds the vault by its name instead of making a second one. The project row, its
 * wallets and its key are written in one transaction once Fireblocks has answered every call; a refusal from
 * Fireblocks ends the reservation and leaves nothing behind in the database.
 */
async function createFireblocksProject(
  db: Db,
  fireblocks: FireblocksCustody,
  input: NewProject,
  ownerType: OwnerType,
): Promise<{ project: Project; apiKey: string }> {
  const projectId = await reserveProjectId(db, input, ownerType);
  let vault: { vaultAccountId: string; address: string };
  try {
    vault = await fireblocks.provision(fireblocks.vaultName(ownerType === 'shared' ? 'shared' : projectId), [
      'mainnet',
      'testnet',
    ]);
  } catch (error) {
    if (error instanceof FireblocksCallError && error.failure === 'refused') {
      await db.query('DELETE FROM custody_provisionings WHERE project_id = $1', [projectId]);
    }
    const message = error instanceof FireblocksCallError ? error.message : (error as Error).message;
    throw new CustodyProvisioningError(
      `The project was not created: ${message}${error instanceof FireblocksCallError && error.failure !== 'refused' ? ' (run the same command again: it resumes with the same vault account)' : ''}`,
      { cause: error },
    );
  }
  return db.transaction(async (client) => {
    const wallet = async (networkType: 'mainnet' | 'testnet') => {
      if (ownerType === 'shared') {
        await client.query(
          `INSERT INTO system_wallets (address, type, network_type, owner_type, fireblocks_vault_id)
           VALUES ($1, 'fireblocks', $2, 'shared', $3) ON CONFLICT DO NOTHING`,
          [vault.address, networkType, vault.vaultAccountId],
        );
        const { rows } = await client.query<{ id: number }>(
          `SELECT id FROM system_wallets WHERE owner_type = 'shared' AND network_type = $1 AND type = 'fireblocks'`,
          [networkType],
        );
        return (rows[0] as { id: number }).id;
      }
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO system_wallets (address, type, network_type, owner_type, fireblocks_vault_id)
         VALUES ($1, 'fireblocks', $2, 'dedicated', $3) RETURNING id`,
        [vault.address, networkType, vault.vaultAccountId],
      );
      return (rows[0] as { id: number }).id;
    };
    const mainnet = await wallet('mainnet');
    const testnet = await wallet('testnet');
    const created = await insertProject(client, projectId, input, mainnet, testnet);
    await client.query('DELETE FROM custody_provisionings WHERE project_id = $1', [projectId]);
    return created;
  });
}

async function walletFor(
  client: Queryable,
  keys: WalletKeys,
  networkType: 'mainnet' | 'testnet',
  ownerType: OwnerType,
) {
  if (ownerType === 'shared') {
    const index = SHARED_INDEX[networkType];
    await client.query(
      `INSERT INTO system_wallets (address, type, network_type, owner_type, derivation_index)
       VALUES ($1, 'from-mnemonic', $2, 'shared', $3) ON CONFLICT DO NOTHING`,
      [keys.account(index).address, networkType, index],
    );
    const { rows } = await client.query<{ id: number }>(
      `SELECT id FROM system_wallets WHERE owner_type = 'shared' AND network_type = $1 AND type = 'from-mnemonic'`,
      [networkType],
    );
    return (rows[0] as { id: number }).id;
  }
  const { rows: seq } = await client.query<{ index: number }>(
    "SELECT nextval('wallet_derivation_index_seq')::int AS index",
  );
  const index = (seq[0] as { index: number }).index;
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO system_wallets (address, type, network_type, owner_type, derivation_index)
     VALUES ($1, 'from-mnemonic', $2, 'dedicated', $3) RETURNING id`,
    [keys.account(index).address, networkType, index],
  );
  return (rows[0] as { id: number }).id;
}

/** Revokes the project's active key and issues a new one; the old key stops working at once. */
export async function rotateApiKey(db: Db, projectId: number, mode: KeyMode): Promise<string> {
  return db.transaction(async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
    if (!rowCount) throw new Error(`Project ${projectId} does not exist`);
    await client.query('UPDATE api_keys SET revoked_at = now() WHERE project_id = $1 AND revoked_at IS NULL', [
      projectId,
    ]);
    return (await insertKey(client, projectId, mode)).key;
  });
}

const PROJECT_COLUMNS = `p.id, p.project_name AS "projectName", coalesce(k.masked, '') AS "apiKey"`;
const PROJECT_FROM = 'projects p LEFT JOIN api_keys k ON k.project_id = p.id AND k.revoked_at IS NULL';

export async function getProjectDetail(db: Db, projectId: number): Promise<ProjectDetail | undefined> {
  const { rows } = await db.query<{ project: Project; mainnet: SystemWallet; testnet: SystemWallet }>(
    `SELECT json_build_object('id', p.id, 'projectName', p.project_name, 'apiKey', coalesce(k.masked, '')) AS project,
            ${walletJson('wm')} AS mainnet, ${walletJson('wt')} AS testnet
       FROM ${PROJECT_FROM}
       JOIN system_wallets wm ON wm.id = p.wallet_mainnet_id
       JOIN system_wallets wt ON wt.id = p.wallet_testnet_id
      WHERE p.id = $1`,
    [projectId],
  );
  const row = rows[0];
  return row && { project: row.project, mSystemWalletMainnet: row.mainnet, mSystemWalletTestnet: row.testnet };
}

function walletJson(alias: string): string {
  return `json_build_object('id', ${alias}.id, 'address', ${alias}.address, 'type', ${alias}.type,
    'networkType', ${alias}.network_type, 'ownerType', ${alias}.owner_type,
    'custody', CASE WHEN ${alias}.fireblocks_vault_id IS NOT NULL
      THEN json_build_object('provider', 'fireblocks', 'vaultAccountId', ${alias}.fireblocks_vault_id)
      WHEN ${alias}.kms_key_arn IS NOT NULL
      THEN json_build_object('provider', 'aws-kms', 'keyArn', ${alias}.kms_key_arn,
                             'keyId', split_part(${alias}.kms_key_arn, ':key/', 2)) END)`;
}

/** The projects a user is a member of, oldest first, one page. */
export async function listProjectsForUser(
  db: Db,
  userId: number,
  page: { limit: number; offset: number },
): Promise<{ projects: Project[]; total: number }> {
  const { rows } = await db.query<Project & { total: number }>(
    `SELECT ${PROJECT_COLUMNS}, count(*) OVER () AS total
       FROM ${PROJECT_FROM} JOIN memberships m ON m.project_id = p.id
      WHERE m.user_id = $1 ORDER BY p.id LIMIT $2 OFFSET $3`,
    [userId, page.limit, page.offset],
  );
  if (rows.length === 0 && page.offset > 0) {
    const { rows: count } = await db.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM memberships WHERE user_id = $1',
      [userId],
    );
    return { projects: [], total: count[0]?.total ?? 0 };
  }
  return {
    projects: rows.map(({ total: _total, ...project }) => project),
    total: rows[0]?.total ?? 0,
  };
}

/** Whether the project's key is a live or a test one (a rotation keeps it): from its current key's prefix. */
export async function currentKeyMode(db: Db, projectId: number): Promise<KeyMode> {
  const { rows } = await db.query<{ masked: string }>(
    'SELECT masked FROM api_keys WHERE project_id = $1 ORDER BY revoked_at IS NULL DESC, id DESC LIMIT 1',
    [projectId],
  );
  return rows[0]?.masked.startsWith('mtn_live_') ? 'live' : 'test';
}
