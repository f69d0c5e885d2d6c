import type { KeyMode } from '#api/auth/apiKeys.ts';
import type { Db, Queryable } from '#api/db/db.ts';
import { validationError } from '#api/errors/ApiError.ts';
import type { Custodian, NetworkType, NewWallet, OwnerType, ProvisionRequest } from '#api/wallets/custodian.ts';
import {
  clientOf,
  custodianOf,
  custodyViewSql,
  DEFAULT_WALLET_TYPE,
  type RemoteCustodians,
  type WalletType,
} from '#api/wallets/custodians.ts';
import type { WalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { requireConfigured } from '#api/wallets/signer.ts';
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
  networkType: NetworkType;
  ownerType: OwnerType;
  /** The custodian's view (its `view` in the registry), or null. */
  custody: Record<string, string> | null;
}

export interface ProjectDetail {
  project: Project;
  mSystemWalletMainnet: SystemWallet;
  mSystemWalletTestnet: SystemWallet;
  /** Every wallet of the project: the primary wallets, then each pool's others, mainnet first, by pool position. */
  mSystemWallets: SystemWallet[];
}

/**
 * Creates a project with its two system wallets and its first API key. The wallets are the project's own
 * (`dedicated`) unless `ownerType: 'shared'` comes with `allowSharedWallet: true`; shared without it is refused
 * with a 400 naming `allowSharedWallet`. Its wallet type's custodian (the registry, `wallets/custodians.ts`) makes
 * the wallets: in the project's transaction for a custody the database holds (from-mnemonic); otherwise the
 * project's id is reserved first (custody_provisionings), so the custodian names its wallets before anything
 * exists, and a creation run again after a crash or a timeout (same name, wallet type and owner type) takes the
 * same id and resumes with what the custodian made instead of making it twice. The project row, its wallets and its
 * key are then written in one transaction once the custodian has answered every call; a refusal ends the
 * reservation and leaves nothing behind in the database (the custodian's `undo`).
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
  const type = input.walletType ?? DEFAULT_WALLET_TYPE;
  const custodian = custodianOf(type);
  requireConfigured(custodian, custodians);
  const clients = { keys, client: clientOf(custodian, custodians) };
  const insert = async (client: Queryable, projectId: number | undefined, wallets: Record<NetworkType, NewWallet>) => {
    const mainnet = await insertWallet(client, type, custodian, 'mainnet', ownerType, wallets.mainnet);
    const testnet = await insertWallet(client, type, custodian, 'testnet', ownerType, wallets.testnet);
    return insertProject(client, projectId, input, mainnet, testnet);
  };
  const { undo } = custodian;
  if (!undo) {
    return db.transaction(async (client) => {
      const wallets = await custodian.provision(provisionRequest(client, undefined, input, ownerType), clients);
      return insert(client, undefined, wallets);
    });
  }
  const projectId = await reserveProjectId(db, input, ownerType);
  const wallets = await custodian
    .provision(provisionRequest(db, projectId, input, ownerType), clients)
    .catch(async (error: unknown): Promise<never> => {
      const failure = undo(error);
      if (failure.refused) await db.query('DELETE FROM custody_provisionings WHERE project_id = $1', [projectId]);
      const resume = failure.resumesWith ? ` (run the same command again: it resumes with ${failure.resumesWith})` : '';
      throw new CustodyProvisioningError(`The project was not created: ${(error as Error).message}${resume}`, {
        cause: error,
      });
    });
  return db.transaction(async (client) => {
    const created = await insert(client, projectId, wallets);
    await client.query('DELETE FROM custody_provisionings WHERE project_id = $1', [projectId]);
    return created;
  });
}

/** What a custodian is asked for a new project: `made` and `record` keep what it made under the reserved id. */
function provisionRequest(
  client: Pick<Db, 'query'>,
  projectId: number | undefined,
  input: NewProject,
  ownerType: OwnerType,
): ProvisionRequest {
  return {
    db: client,
    projectId,
    projectName: input.projectName,
    ownerType,
    ...(input.kmsKeyId ? { kmsKeyId: input.kmsKeyId } : {}),
    async made() {
      const { rows } = await client.query<{ refs: Partial<Record<NetworkType, string>> }>(
        'SELECT custody_refs AS refs FROM custody_provisionings WHERE project_id = $1',
        [projectId],
      );
      return rows[0]?.refs ?? {};
    },
    async record(networkType, ref) {
      await client.query(
        `UPDATE custody_provisionings SET custody_refs = custody_refs || jsonb_build_object($2::text, $3::text)
          WHERE project_id = $1`,
        [projectId, networkType, ref],
      );
    },
  };
}

/** A project's wallet: its own, or the one shared wallet of its type and network type (made by the first project). */
async function insertWallet(
  client: Queryable,
  type: WalletType,
  custodian: Custodian,
  networkType: NetworkType,
  ownerType: OwnerType,
  wallet: NewWallet,
): Promise<number> {
  const columns = `(address, type, network_type, owner_type, ${custodian.refColumn})`;
  if (ownerType === 'shared') {
    await client.query(
      `INSERT INTO system_wallets ${columns} VALUES ($1, $2, $3, 'shared', $4) ON CONFLICT DO NOTHING`,
      [wallet.address, type, networkType, wallet.ref],
    );
    const { rows } = await client.query<{ id: number }>(
      `SELECT id FROM system_wallets WHERE owner_type = 'shared' AND network_type = $1 AND type = $2`,
      [networkType, type],
    );
    return (rows[0] as { id: number }).id;
  }
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO system_wallets ${columns} VALUES ($1, $2, $3, 'dedicated', $4) RETURNING id`,
    [wallet.address, type, networkType, wallet.ref],
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
  const { rows } = await db.query<{
    project: Project;
    mainnet: SystemWallet;
    testnet: SystemWallet;
    pool: SystemWallet[];
  }>(
    `SELECT json_build_object('id', p.id, 'projectName', p.project_name, 'apiKey', coalesce(k.masked, '')) AS project,
            ${walletJson('wm')} AS mainnet, ${walletJson('wt')} AS testnet,
            (SELECT coalesce(json_agg(${walletJson('pw')} ORDER BY pw.network_type, pw.pool_position), '[]')
               FROM system_wallets pw WHERE pw.project_id = p.id AND pw.pool_position > 0) AS pool
       FROM ${PROJECT_FROM}
       JOIN system_wallets wm ON wm.id = p.wallet_mainnet_id
       JOIN system_wallets wt ON wt.id = p.wallet_testnet_id
      WHERE p.id = $1`,
    [projectId],
  );
  const row = rows[0];
  return (
    row && {
      project: row.project,
      mSystemWalletMainnet: row.mainnet,
      mSystemWalletTestnet: row.testnet,
      mSystemWallets: [row.mainnet, row.testnet, ...row.pool],
    }
  );
}

function walletJson(alias: string): string {
  return `json_build_object('id', ${alias}.id, 'address', ${alias}.address, 'type', ${alias}.type,
    'networkType', ${alias}.network_type, 'ownerType', ${alias}.owner_type, 'custody', ${custodyViewSql(alias)})`;
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
