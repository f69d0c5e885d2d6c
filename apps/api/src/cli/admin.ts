import { parseArgs } from 'node:util';
import { issueAccessToken, revokeAccessToken, revokeUserTokens } from '#api/auth/revocation.ts';
import { loadConfig } from '#api/config/config.ts';
import { DatabaseError, UniqueViolationError } from '#api/db/db.ts';
import { setScanEnabled } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { createProject, rotateApiKey, SHARED_WALLET_RISK } from '#api/projects/projects.ts';
import { createUser, findUserId, ROLES, type Role, removeMembership, setMembership } from '#api/projects/users.ts';
import { openDatabase } from '#api/runtime/database.ts';
import { WalletProviderNotConfiguredError } from '#api/wallets/signer.ts';
import { loadWalletKeys } from '#api/wallets/walletKeys.ts';
import { parseDuration } from './duration.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-project --name <name> [--owner-type dedicated|shared --allow-shared-wallet]
                 [--wallet-type from-mnemonic|fireblocks]
      Creates a project with its mainnet and testnet system wallets; prints its API key once. Its wallets are
      its own (dedicated) unless --owner-type shared comes with --allow-shared-wallet: any project on the shared
      wallet can act as the others toward contracts that trust its address.
  rotate-key --project <id>
      Revokes the project's API key and prints a new one.
  create-user --email <email> [--name <name>]
  add-member --project <id> --user <email|id> --role admin|editor|reader
      Adds the user to the project, or changes their role.
  remove-member --project <id> --user <email|id>
      Removes the user from the project and revokes every access token of theirs.
  issue-token --user <email|id> [--project <id>] [--expires-in 24h]
      Prints an access token and its token id (expiry as 30m, 24h, 7d or seconds; at most 30d). With
      --project the token is limited to that project.
  revoke-token --token-id <id>
      Revokes the access token with that id (as issue-token printed it).
  revoke-user-tokens --user <email|id>
      Revokes every access token issued to the user until now.
  set-scan --subscription <uuid> --enabled true|false
      Stops an event notifier subscription's scanning, or resumes it from where it stopped (at once).

The database is DATABASE_URL, or the embedded one of npm start (started for the command if not running).`;

export class UsageError extends Error {
  override name = 'UsageError';
}

const OPTIONS = {
  name: { type: 'string' },
  'owner-type': { type: 'string' },
  'allow-shared-wallet': { type: 'boolean' },
  'wallet-type': { type: 'string' },
  project: { type: 'string' },
  email: { type: 'string' },
  user: { type: 'string' },
  role: { type: 'string' },
  'expires-in': { type: 'string' },
  subscription: { type: 'string' },
  enabled: { type: 'string' },
  'token-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function positiveInt(value: string, name: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new UsageError(`--${name} must be a positive integer (got "${value}")`);
  return Number(value);
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function expiresIn(text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    throw new UsageError(`--expires-in: ${(error as Error).message}`);
  }
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function scanInput(values: Values): { subscriptionId: string; enabled: boolean } {
  const subscriptionId = required(values, 'subscription');
  if (!UUID.test(subscriptionId)) throw new UsageError(`--subscription must be a subscription id (a uuid)`);
  const enabled = oneOf(required(values, 'enabled'), ['true', 'false'] as const, 'enabled');
  return { subscriptionId, enabled: enabled === 'true' };
}

export async function runAdmin(argv: string[], print: (line: string) => void): Promise<void> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.help || !command) {
    print(USAGE);
    if (!command && !values.help) throw new UsageError('a command is required');
    return;
  }
  const commands = [
    'create-project',
    'rotate-key',
    'create-user',
    'add-member',
    'remove-member',
    'issue-token',
    'revoke-token',
    'revoke-user-tokens',
    'set-scan',
  ];
  if (!commands.includes(command)) throw new UsageError(`unknown command "${command}"`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);

  const config = loadConfig();
  const keyMode = config.env === 'production' ? 'live' : 'test';
  // Validate every option before touching the database.
  const input = {
    name: command === 'create-project' ? required(values, 'name') : undefined,
    ownerType: oneOf(values['owner-type'], ['dedicated', 'shared'] as const, 'owner-type'),
    walletType: oneOf(values['wallet-type'], ['from-mnemonic', 'fireblocks'] as const, 'wallet-type'),
    project: values.project !== undefined ? positiveInt(values.project, 'project') : undefined,
    role: oneOf(values.role, ROLES, 'role'),
    expiresIn: expiresIn(values['expires-in'] ?? '24h'),
  };
  if (input.ownerType === 'shared' && !values['allow-shared-wallet']) {
    throw new UsageError(
      `--owner-type shared needs --allow-shared-wallet: ${SHARED_WALLET_RISK} (leave --owner-type out for a dedicated wallet)`,
    );
  }
  if (['rotate-key', 'add-member', 'remove-member'].includes(command) && input.project === undefined) {
    throw new UsageError('--project is required');
  }
  if (command === 'add-member' && !input.role) throw new UsageError('--role is required');
  const email = command === 'create-user' ? required(values, 'email') : undefined;
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`--email is not an email address`);
  const userCommands = ['add-member', 'remove-member', 'issue-token', 'revoke-user-tokens'];
  const userRef = userCommands.includes(command) ? required(values, 'user') : undefined;
  const scan = command === 'set-scan' ? scanInput(values) : undefined;
  const tokenId = command === 'revoke-token' ? required(values, 'token-id').toLowerCase() : undefined;
  if (tokenId !== undefined && !UUID.test(tokenId)) {
    throw new UsageError('--token-id must be a token id (a uuid, as issue-token printed it)');
  }

  const database = await openDatabase(config);
  const { db } = database;
  try {
    const userId = async () => {
      const id = await findUserId(db, userRef as string);
      if (id === undefined) throw new UsageError(`no user "${userRef}"`);
      return id;
    };
    switch (command) {
      case 'create-project': {
        const keys = await loadWalletKeys(db, config.masterKey);
        const { project, apiKey } = await createProject(db, keys, {
          projectName: input.name as string,
          keyMode,
          ...(input.ownerType ? { ownerType: input.ownerType } : {}),
          ...(values['allow-shared-wallet'] ? { allowSharedWallet: true } : {}),
          ...(input.walletType ? { walletType: input.walletType } : {}),
        });
        print(`project ${project.id} "${project.projectName}" created`);
        print(`API key (shown once, store it now): ${apiKey}`);
        break;
      }
      case 'rotate-key':
        print(`new API key (the old one no longer works): ${await rotateApiKey(db, input.project as number, keyMode)}`);
        break;
      case 'create-user': {
        const user = await createUser(db, { email: email as string, name: values.name ?? '' });
        print(`user ${user.id} <${email?.toLowerCase()}> created`);
        break;
      }
      case 'add-member': {
        const id = await userId();
        await setMembership(db, { projectId: input.project as number, userId: id, role: input.role as Role });
        print(`user ${id} is ${input.role} of project ${input.project}`);
        break;
      }
      case 'remove-member': {
        const id = await userId();
        const removed = await removeMembership(db, { projectId: input.project as number, userId: id });
        if (!removed) {
          const { rowCount } = await db.query('SELECT 1 FROM projects WHERE id = $1', [input.project]);
          throw new UsageError(
            rowCount ? `user ${id} is not a member of project ${input.project}` : `no project ${input.project}`,
          );
        }
        print(`user ${id} removed from project ${input.project}; every access token of theirs is revoked`);
        if (removed.otherProjects.length > 0) {
          print(`still a member of project ${removed.otherProjects.join(', ')}: issue them a new token for those`);
        }
        break;
      }
      case 'issue-token': {
        const id = await userId();
        const { token, claims } = await issueAccessToken(db, config.tokenSigningKey, {
          userId: id,
          expiresInSeconds: input.expiresIn,
          ...(input.project !== undefined ? { projectId: input.project } : {}),
        });
        print(`access token for user ${id} (token id ${claims.jti}), expires ${isoSeconds(claims.exp)}:`);
        print(token);
        break;
      }
      case 'revoke-token': {
        const record = await revokeAccessToken(db, tokenId as string);
        if (!record) {
          throw new UsageError(
            `no access token "${tokenId}": none was issued with that id, or it has expired ` +
              '(revoke-user-tokens revokes every token of a user, also those issued before token ids were recorded)',
          );
        }
        print(
          record.revokedAt
            ? `access token ${tokenId} of user ${record.userId} was already revoked (${record.revokedAt.toISOString()})`
            : `access token ${tokenId} of user ${record.userId} revoked (it expires ${record.expiresAt.toISOString()})`,
        );
        break;
      }
      case 'revoke-user-tokens': {
        const id = await userId();
        const before = (await db.transaction((client) => revokeUserTokens(client, id))) as Date;
        print(`every access token of user ${id} issued before ${before.toISOString()} is revoked`);
        break;
      }
      case 'set-scan': {
        const { subscriptionId, enabled } = scan as { subscriptionId: string; enabled: boolean };
        const changed = await setScanEnabled(db, subscriptionId, enabled);
        if (!changed) throw new UsageError(`no subscription "${subscriptionId}"`);
        print(`subscription ${subscriptionId}: scanning ${enabled ? 'resumed' : 'stopped'}`);
        break;
      }
    }
  } catch (error) {
    if (error instanceof UniqueViolationError) throw new UsageError('that already exists');
    if (error instanceof DatabaseError && error.pgCode === '23503') throw new UsageError('no such project or user');
    if (error instanceof WalletProviderNotConfiguredError) throw new UsageError(error.message);
    throw error;
  } finally {
    await database.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runAdmin(process.argv.slice(2), (line) => console.log(line)).catch((error) => {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}\nRun "npm run admin -- --help" for usage.`);
      process.exit(2);
    }
    console.error(error);
    process.exit(1);
  });
}
