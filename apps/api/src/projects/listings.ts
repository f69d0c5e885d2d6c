import type { Db } from '#api/db/db.ts';
import { listingRefsSql } from '#api/wallets/custodians.ts';
import type { Role } from './users.ts';

/** `T` as the database answers it: `K` a Date, written out as ISO 8601 in the listings. */
type Dated<T, K extends keyof T> = Omit<T, K> & Record<K, Date>;

/** A project as the operator sees it: its key masked, its wallets, how many members. */
export interface ProjectListing {
  id: number;
  projectName: string;
  apiKey: string;
  walletMainnet: WalletListing;
  walletTestnet: WalletListing;
  members: number;
  createdAt: string;
}

/** A system wallet in a listing: `vaultAccountId` for a Fireblocks wallet, `kmsKeyArn` for an AWS KMS one. */
export interface WalletListing {
  address: string;
  type: string;
  ownerType: string;
  vaultAccountId: string | null;
  kmsKeyArn: string | null;
}

export interface UserListing {
  id: number;
  email: string;
  name: string;
  projects: { projectId: number; role: Role }[];
  createdAt: string;
}

export interface MemberListing {
  userId: number;
  email: string;
  name: string;
  role: Role;
  since: string;
}

const walletListing = (w: string) =>
  `json_build_object('address', ${w}.address, 'type', ${w}.type, 'ownerType', ${w}.owner_type, ${listingRefsSql(w)})`;

/** Every project, oldest first (the admin CLI's list-projects). */
export async function listProjects(db: Db): Promise<ProjectListing[]> {
  const { rows } = await db.query<Dated<ProjectListing, 'createdAt'>>(
    `SELECT p.id, p.project_name AS "projectName", coalesce(k.masked, '') AS "apiKey",
            ${walletListing('wm')} AS "walletMainnet", ${walletListing('wt')} AS "walletTestnet",
            (SELECT count(*)::int FROM memberships m WHERE m.project_id = p.id) AS members,
            p.created_at AS "createdAt"
       FROM projects p
       LEFT JOIN api_keys k ON k.project_id = p.id AND k.revoked_at IS NULL
       JOIN system_wallets wm ON wm.id = p.wallet_mainnet_id
       JOIN system_wallets wt ON wt.id = p.wallet_testnet_id
      ORDER BY p.id`,
  );
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}

/** Every user with their memberships, oldest first (list-users). */
export async function listUsers(db: Db): Promise<UserListing[]> {
  const { rows } = await db.query<Dated<UserListing, 'createdAt'>>(
    `SELECT u.id, u.email, u.name,
            coalesce(json_agg(json_build_object('projectId', m.project_id, 'role', m.role) ORDER BY m.project_id)
                     FILTER (WHERE m.project_id IS NOT NULL), '[]') AS projects,
            u.created_at AS "createdAt"
       FROM users u LEFT JOIN memberships m ON m.user_id = u.id
      GROUP BY u.id ORDER BY u.id`,
  );
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}

/** The members of a project, in the order they joined (list-members); `undefined` when there is no such project. */
export async function listMembers(db: Db, projectId: number): Promise<MemberListing[] | undefined> {
  const { rows } = await db.query<Dated<MemberListing, 'since'> & { project: number }>(
    `SELECT p.id AS project, u.id AS "userId", u.email, u.name, m.role,
            m.created_at AS since
       FROM projects p
       LEFT JOIN memberships m ON m.project_id = p.id
       LEFT JOIN users u ON u.id = m.user_id
      WHERE p.id = $1 ORDER BY m.created_at, u.id`,
    [projectId],
  );
  if (rows.length === 0) return undefined;
  // A project without members is one row of NULLs.
  return rows
    .filter((r) => r.userId !== null)
    .map(({ project: _project, ...member }) => ({ ...member, since: member.since.toISOString() }));
}
