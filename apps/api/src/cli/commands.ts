import type { KeyMode } from '#api/auth/apiKeys.ts';
import { consoleSignInLink, createConsoleLink } from '#api/auth/consoleLinks.ts';
import { issueAccessToken, revokeAccessToken, revokeUserTokens } from '#api/auth/revocation.ts';
import type { Config } from '#api/config/config.ts';
import type { Db } from '#api/db/db.ts';
import { listMembers, listProjects, listUsers } from '#api/projects/listings.ts';
import { createUser, findUserId, isMember, type Role, removeMembership, setMembership } from '#api/projects/users.ts';
import type { WalletType } from '#api/wallets/custodians.ts';
import { UsageError } from './usageError.ts';

/** What a command answers: lines for a person, and one JSON document for `--json`. */
export interface Output {
  lines: string[];
  json: unknown;
  /** Set when the command printed its report but left work undone: the message, and exit code 1. */
  incomplete?: string;
}

/** A command's options, validated before the database is opened (admin.ts). */
export interface CommandInput {
  name?: string;
  email?: string;
  ownerType?: 'dedicated' | 'shared';
  allowSharedWallet: boolean;
  walletType?: WalletType;
  /** An existing KMS key for an aws-kms project's wallets (--kms-key-id). */
  kmsKeyId?: string;
  project?: number;
  role?: Role;
  expiresIn: number;
  userRef?: string;
  tokenId?: string;
  scan?: { subscriptionId: string; enabled: boolean };
  /** Rows per database transaction of rotate-master-key (--batch-size). */
  batchSize?: number;
  /** The transaction cancel-transaction cancels (--transaction). */
  transactionId?: string;
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Columns padded to their widest cell, two spaces apart. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Runs one command on the database. The modules of projects, wallets and subscriptions (viem, the custodians' SDKs,
 * the event notifier) are loaded by the commands that use them only. A long command tells its progress through
 * `progress` (stderr), apart from its answer.
 */
export async function runCommand(
  command: string,
  input: CommandInput,
  db: Db,
  config: Config,
  progress: (line: string) => void = () => {},
): Promise<Output> {
  const keyMode: KeyMode = config.env === 'production' ? 'live' : 'test';
  const project = input.project as number;
  const userId = async () => {
    const id = await findUserId(db, input.userRef as string);
    if (id === undefined) throw new UsageError(`no user "${input.userRef}"`);
    return id;
  };
  switch (command) {
    case 'create-project': {
      const [{ createProject }, { remoteCustodians }, { loadWalletKeys }] = await Promise.all([
        import('#api/projects/projects.ts'),
        import('#api/wallets/remoteCustodians.ts'),
        import('#api/wallets/fromMnemonic/walletKeys.ts'),
      ]);
      const keys = await loadWalletKeys(db, config.masterKey);
      const created = await createProject(
        db,
        keys,
        {
          projectName: input.name as string,
          keyMode,
          ...(input.ownerType ? { ownerType: input.ownerType } : {}),
          ...(input.allowSharedWallet ? { allowSharedWallet: true } : {}),
          ...(input.walletType ? { walletType: input.walletType } : {}),
          ...(input.kmsKeyId ? { kmsKeyId: input.kmsKeyId } : {}),
        },
        await remoteCustodians(config),
      );
      const { id, projectName } = created.project;
      return {
        lines: [`project ${id} "${projectName}" created`, `API key (shown once, store it now): ${created.apiKey}`],
        json: { project: { id, projectName }, apiKey: created.apiKey },
      };
    }
    case 'rotate-key': {
      const { rotateApiKey } = await import('#api/projects/projects.ts');
      const apiKey = await rotateApiKey(db, project, keyMode);
      return {
        lines: [`new API key (the old one no longer works): ${apiKey}`],
        json: { projectId: project, apiKey },
      };
    }
    case 'rotate-master-key': {
      const [{ checkMasterKey }, { rotateMasterKey }] = await Promise.all([
        import('#api/crypto/masterKeyCheck.ts'),
        import('#api/crypto/rotateMasterKey.ts'),
      ]);
      await checkMasterKey(db, config.masterKey);
      const report = await rotateMasterKey(db, config.masterKey, {
        ...(input.batchSize ? { batchSize: input.batchSize } : {}),
        onBatch: (column, resealed) => progress(`${column}: ${resealed} re-sealed so far`),
      });
      const { currentKeyId, keyIds } = report;
      const lines = [
        `current master key ${currentKeyId} (${keyIds.length === 1 ? 'the only key configured' : `first of ${keyIds.length} keys`})`,
        ...report.columns.map(
          (c) => `${c.name}: ${c.resealed} re-sealed now, ${c.current} under the current key, ${c.remaining} not`,
        ),
        ...report.columns.flatMap((c) =>
          c.unreadable.map(
            (u) => `${c.name} of ${u.key}: sealed under ${u.sealedUnder}, which no configured key opens`,
          ),
        ),
      ];
      // The check value waits for the others (rotateMasterKey.ts): what is left is theirs.
      const left = report.columns.slice(0, -1).reduce((n, c) => n + c.remaining, 0);
      if (report.done) {
        lines.push(
          `done: every secret is sealed under master key ${currentKeyId}` +
            (keyIds.length > 1 ? '; the keys after it can leave MASTER_KEYS (keep them with the older backups)' : ''),
        );
      }
      return {
        lines,
        json: report,
        ...(report.done
          ? {}
          : {
              incomplete:
                `${left} secret(s) are not under master key ${currentKeyId} yet: add the key that opens them to ` +
                'MASTER_KEYS (after the current one) and run rotate-master-key again',
            }),
      };
    }
    case 'create-user': {
      const email = (input.email as string).toLowerCase();
      const user = await createUser(db, { email, name: input.name ?? '' });
      return {
        lines: [`user ${user.id} <${email}> created`],
        json: { user: { id: user.id, email, name: input.name ?? '' } },
      };
    }
    case 'add-member': {
      const id = await userId();
      await setMembership(db, { projectId: project, userId: id, role: input.role as Role });
      return {
        lines: [`user ${id} is ${input.role} of project ${project}`],
        json: { projectId: project, userId: id, role: input.role },
      };
    }
    case 'remove-member': {
      const id = await userId();
      const removed = await removeMembership(db, { projectId: project, userId: id });
      if (!removed) {
        const { rowCount } = await db.query('SELECT 1 FROM projects WHERE id = $1', [project]);
        throw new UsageError(rowCount ? `user ${id} is not a member of project ${project}` : `no project ${project}`);
      }
      const lines = [`user ${id} removed from project ${project}; every access token of theirs is revoked`];
      if (removed.otherProjects.length > 0) {
        lines.push(`still a member of project ${removed.otherProjects.join(', ')}: issue them a new token for those`);
      }
      return { lines, json: { projectId: project, userId: id, otherProjects: removed.otherProjects } };
    }
    case 'issue-token': {
      const id = await userId();
      const { token, claims } = await issueAccessToken(db, config.tokenSigningKey, {
        userId: id,
        expiresInSeconds: input.expiresIn,
        ...(input.project !== undefined ? { projectId: input.project } : {}),
      });
      return {
        lines: [`access token for user ${id} (token id ${claims.jti}), expires ${isoSeconds(claims.exp)}:`, token],
        json: {
          userId: id,
          projectId: input.project ?? null,
          tokenId: claims.jti,
          expiresAt: isoSeconds(claims.exp),
          accessToken: token,
        },
      };
    }
    case 'console-link': {
      const id = await userId();
      if (input.project !== undefined && !(await isMember(db, input.project, id))) {
        throw new UsageError(`user ${id} is not a member of project ${input.project}`);
      }
      const { code, expiresAt } = await createConsoleLink(db, {
        userId: id,
        expiresInSeconds: input.expiresIn,
        ...(input.project !== undefined ? { projectId: input.project } : {}),
      });
      const link = consoleSignInLink(config.consoleUrl, code);
      return {
        lines: [`console sign-in link for user ${id} (good once, until ${expiresAt.toISOString()}):`, link],
        json: { userId: id, projectId: input.project ?? null, expiresAt: expiresAt.toISOString(), link },
      };
    }
    case 'revoke-token': {
      const tokenId = input.tokenId as string;
      const record = await revokeAccessToken(db, tokenId);
      if (!record) {
        throw new UsageError(
          `no access token "${tokenId}": none was issued with that id, or it has expired ` +
            '(revoke-user-tokens revokes every token of a user, also those issued before token ids were recorded)',
        );
      }
      const { userId: owner, revokedAt, expiresAt } = record;
      const of = owner === null ? 'of a project API key' : `of user ${owner}`;
      return {
        lines: [
          revokedAt
            ? `access token ${tokenId} ${of} was already revoked (${revokedAt.toISOString()})`
            : `access token ${tokenId} ${of} revoked (it expires ${expiresAt.toISOString()})`,
        ],
        json: { tokenId, userId: owner, alreadyRevoked: revokedAt !== null, expiresAt: expiresAt.toISOString() },
      };
    }
    case 'revoke-user-tokens': {
      const id = await userId();
      const before = (await db.transaction((client) => revokeUserTokens(client, id))) as Date;
      return {
        lines: [`every access token of user ${id} issued before ${before.toISOString()} is revoked`],
        json: { userId: id, revokedBefore: before.toISOString() },
      };
    }
    case 'set-scan': {
      const { subscriptionId, enabled } = input.scan as { subscriptionId: string; enabled: boolean };
      const { setScanEnabled } = await import('#api/eventNotifier/subscriptions/subscriptions.ts');
      if (!(await setScanEnabled(db, subscriptionId, enabled))) {
        throw new UsageError(`no subscription "${subscriptionId}"`);
      }
      return {
        lines: [`subscription ${subscriptionId}: scanning ${enabled ? 'resumed' : 'stopped'}`],
        json: { subscriptionId, scanEnabled: enabled },
      };
    }
    case 'cancel-transaction': {
      const id = input.transactionId as string;
      const [{ cancelTransaction }, { ApiError }] = await Promise.all([
        import('#api/transactions/cancel.ts'),
        import('#api/errors/ApiError.ts'),
      ]);
      const { rows } = await db.query<{ projectId: number }>(
        'SELECT project_id AS "projectId" FROM transactions WHERE id = $1',
        [id],
      );
      if (!rows[0]) throw new UsageError(`no transaction "${id}"`);
      try {
        const t = await cancelTransaction(db, rows[0].projectId, id);
        const what =
          t.status === 'cancelled'
            ? 'cancelled'
            : t.custody
              ? `${t.status}: ${t.custody.provider} cancels or drops it once a worker asks it`
              : t.nonce === null
                ? `${t.status}: once sent, a 0-value transfer to its wallet replaces it at its nonce`
                : `${t.status}: a 0-value transfer to its wallet replaces it at nonce ${t.nonce} once a worker sends it`;
        return { lines: [`transaction ${id} (project ${t.projectId}): ${what}`], json: { transaction: t } };
      } catch (error) {
        if (error instanceof ApiError) throw new UsageError(error.message);
        throw error;
      }
    }
    case 'list-projects': {
      const projects = await listProjects(db);
      const rows = projects.map((p) => [
        String(p.id),
        p.projectName,
        p.apiKey,
        p.walletMainnet.ownerType,
        p.walletMainnet.vaultAccountId
          ? `${p.walletMainnet.type} (vault ${p.walletMainnet.vaultAccountId})`
          : p.walletMainnet.kmsKeyArn
            ? `${p.walletMainnet.type} (key ${p.walletMainnet.kmsKeyArn}${p.walletTestnet.kmsKeyArn !== p.walletMainnet.kmsKeyArn ? `, testnet ${p.walletTestnet.kmsKeyArn}` : ''})`
            : p.walletMainnet.type,
        String(p.members),
        p.createdAt,
      ]);
      return {
        lines: table(['ID', 'NAME', 'API KEY', 'WALLETS', 'CUSTODY', 'MEMBERS', 'CREATED'], rows),
        json: { projects },
      };
    }
    case 'list-users': {
      const users = await listUsers(db);
      const rows = users.map((u) => [
        String(u.id),
        u.email,
        u.name,
        u.projects.map((m) => `${m.projectId}:${m.role}`).join(',') || '-',
        u.createdAt,
      ]);
      return { lines: table(['ID', 'EMAIL', 'NAME', 'PROJECTS', 'CREATED'], rows), json: { users } };
    }
    case 'list-members': {
      const members = await listMembers(db, project);
      if (!members) throw new UsageError(`no project ${project}`);
      const rows = members.map((m) => [String(m.userId), m.email, m.name, m.role, m.since]);
      return {
        lines: table(['USER', 'EMAIL', 'NAME', 'ROLE', 'SINCE'], rows),
        json: { projectId: project, members },
      };
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}
