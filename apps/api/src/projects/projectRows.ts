import { type IssuedKey, issueApiKey, type KeyMode } from '#api/auth/apiKeys.ts';
import type { Db, Queryable } from '#api/db/db.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import type { OwnerType } from '#api/wallets/custodian.ts';
import { DEFAULT_WALLET_TYPE, type WalletType } from '#api/wallets/custodians.ts';

export interface Project {
  id: number;
  projectName: string;
  /** Masked: the full key is shown only when it is issued. */
  apiKey: string;
}

/** Why a project goes on the shared wallet only when asked for explicitly (`allowSharedWallet`). */
export const SHARED_WALLET_RISK =
  'any project on the shared wallet can act as the others toward contracts that trust its address';

export interface NewProject {
  projectName: string;
  /** `dedicated` unless given: the project's own wallets. */
  ownerType?: OwnerType;
  /** Must be true for `ownerType: 'shared'` (see SHARED_WALLET_RISK). */
  allowSharedWallet?: boolean;
  walletType?: WalletType;
  /** aws-kms: an existing key (id, ARN, alias) for both wallets, instead of a key made for each. */
  kmsKeyId?: string;
  keyMode: KeyMode;
}

/** A custodian's call failed while a project was being made: the project was not made. */
export class CustodyProvisioningError extends BaseError {
  override name = 'CustodyProvisioningError';
  readonly code = 'INTERNAL_ERROR';
}

export async function insertProject(
  client: Queryable,
  id: number | undefined,
  input: NewProject,
  mainnet: number,
  testnet: number,
): Promise<{ project: Project; apiKey: string }> {
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO projects (id, project_name, wallet_mainnet_id, wallet_testnet_id)
     VALUES (coalesce($1, nextval('projects_id_seq')), $2, $3, $4) RETURNING id`,
    [id ?? null, input.projectName, mainnet, testnet],
  );
  const projectId = (rows[0] as { id: number }).id;
  // Its own wallets are its pools' first (position 0); a shared wallet belongs to no project.
  await client.query(
    `UPDATE system_wallets SET project_id = $1, pool_position = 0
      WHERE id IN ($2, $3) AND owner_type = 'dedicated'`,
    [projectId, mainnet, testnet],
  );
  const issued = await insertKey(client, projectId, input.keyMode);
  return { project: { id: projectId, projectName: input.projectName, apiKey: issued.masked }, apiKey: issued.key };
}

/** The id of an unfinished creation of the same project (name, wallet type, owner type), or a new one, reserved. */
export async function reserveProjectId(db: Db, input: NewProject, ownerType: OwnerType): Promise<number> {
  const walletType = input.walletType ?? DEFAULT_WALLET_TYPE;
  const { rows } = await db.query<{ id: number }>(
    `WITH found AS (
       SELECT project_id AS id FROM custody_provisionings
        WHERE project_name = $1 AND wallet_type = $2 AND owner_type = $3 ORDER BY project_id LIMIT 1
     ), made AS (
       INSERT INTO custody_provisionings (project_id, project_name, wallet_type, owner_type)
       SELECT nextval('projects_id_seq'), $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM found)
       RETURNING project_id AS id
     )
     SELECT id FROM found UNION ALL SELECT id FROM made`,
    [input.projectName, walletType, ownerType],
  );
  return (rows[0] as { id: number }).id;
}

export async function insertKey(client: Queryable, projectId: number, mode: KeyMode): Promise<IssuedKey> {
  const issued = issueApiKey(mode);
  await client.query('INSERT INTO api_keys (project_id, lookup_id, secret_hash, masked) VALUES ($1, $2, $3, $4)', [
    projectId,
    issued.lookupId,
    issued.secretHash,
    issued.masked,
  ]);
  return issued;
}
