import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { type NetworkType, WalletProviderNotConfiguredError } from '#api/wallets/custodian.ts';
import { clientOf, custodianOf, type RemoteCustodians, type WalletType } from '#api/wallets/custodians.ts';
import type { WalletAddresses } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { requireConfigured } from '#api/wallets/signer.ts';
import { getProjectDetail, type ProjectDetail } from './projects.ts';

/** The most add-system-wallets makes in one request. */
export const MAX_WALLETS_PER_REQUEST = 64;

export interface AddWalletsDeps {
  db: Db;
  custodians: RemoteCustodians;
  /** The from-mnemonic wallets' addresses (the API derives them from the stored public key, never the keys). */
  addresses: () => Promise<WalletAddresses>;
  maxWalletsPerProject: number;
}

/**
 * Adds `count` wallets of the project's own custody type to its pool of `networkType` (add-system-wallets), in one
 * transaction that holds the project's row: two requests at once take turns, the pool positions are contiguous,
 * and a custodian outside the database names each wallet by its position, so a request run again after a failure
 * finds what the failed one made. A project on a shared wallet has no pool (409 CONFLICT). Answers the project
 * detail with the whole pool.
 */
export async function addSystemWallets(
  deps: AddWalletsDeps,
  projectId: number,
  request: { networkType: NetworkType; count: number },
): Promise<ProjectDetail> {
  const { networkType, count } = request;
  await deps.db.transaction(async (client) => {
    const { rows } = await client.query<{
      name: string;
      type: WalletType;
      ownerType: string;
      size: number;
    }>(
      // The pool's positions are 0 (the primary) to size − 1: each addition takes the next ones under this lock.
      `SELECT p.project_name AS name, w.type, w.owner_type AS "ownerType",
              (SELECT count(*)::int FROM system_wallets pw WHERE pw.project_id = p.id AND pw.network_type = $2) AS size
         FROM projects p
         JOIN system_wallets w ON w.id = CASE WHEN $2 = 'mainnet' THEN p.wallet_mainnet_id ELSE p.wallet_testnet_id END
        WHERE p.id = $1
          FOR UPDATE OF p`,
      [projectId, networkType],
    );
    const project = rows[0];
    if (!project) throw new ApiError('NOT_FOUND', { resource: 'Project', id: projectId });
    if (project.ownerType === 'shared') {
      throw new ApiError('CONFLICT', {
        reason: `Project ${projectId} sends from the shared ${networkType} wallet, which has no pool: only a project with dedicated wallets can add some`,
      });
    }
    const wanted = project.size + count;
    if (wanted > deps.maxWalletsPerProject) {
      throw new ApiError('WALLET_LIMIT_REACHED', {
        projectId,
        wanted: String(wanted),
        networkType,
        limit: String(deps.maxWalletsPerProject),
      });
    }
    const custodian = custodianOf(project.type);
    const positions = Array.from({ length: count }, (_, i) => project.size + i);
    const made = await (async () => {
      requireConfigured(custodian, deps.custodians);
      const keys = custodian.configuration ? undefined : await deps.addresses();
      return custodian.addWallets(
        { db: client, projectId, projectName: project.name, networkType, positions },
        { keys: keys as WalletAddresses, client: clientOf(custodian, deps.custodians) },
      );
    })().catch((error: unknown): never => {
      if (error instanceof WalletProviderNotConfiguredError) {
        throw new ApiError('CUSTODY_NOT_CONFIGURED', { reason: error.message }, { cause: error });
      }
      // Nothing is written: the same request again finds, by their positions, the wallets the custodian made.
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        {
          reason: `the custodian did not make the wallets (${(error as Error).message}); nothing was added: send the same request again`,
        },
        { cause: error },
      );
    });
    const values = made.map((_, i) => `($${i * 3 + 4}, $1, $2, 'dedicated', $${i * 3 + 5}, $3, $${i * 3 + 6})`);
    await client.query(
      `INSERT INTO system_wallets (address, type, network_type, owner_type, ${custodian.refColumn}, project_id, pool_position)
       VALUES ${values.join(', ')}`,
      [
        project.type,
        networkType,
        projectId,
        ...made.flatMap((wallet, i) => [wallet.address, wallet.ref, positions[i]]),
      ],
    );
  });
  return (await getProjectDetail(deps.db, projectId)) as ProjectDetail;
}
