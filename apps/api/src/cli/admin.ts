import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CONSOLE_LINK_MAX_SECONDS } from '#api/auth/consoleLinks.ts';
import { loadConfig, REPO_ROOT } from '#api/config/config.ts';
import { MasterKeyMismatchError } from '#api/crypto/masterKeyCheck.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import { CustodyProvisioningError, SHARED_WALLET_RISK } from '#api/projects/projectRows.ts';
import { ROLES } from '#api/projects/users.ts';
import { WalletProviderNotConfiguredError } from '#api/wallets/custodian.ts';
import { CUSTODIANS, WALLET_TYPES } from '#api/wallets/custodians.ts';
import type { CommandInput } from './commands.ts';
import { parseDuration } from './duration.ts';
import { withRunningPlatform } from './runningPlatform.ts';
import { UsageError } from './usageError.ts';

export { UsageError };

/** A custodian (Fireblocks) refused or failed a step: its message is printed, and the command exits 1. */
export class CustodianRefusal extends BaseError {
  override name = 'CustodianRefusal';
  readonly code = 'INTERNAL_ERROR';
}

/** A command printed its report but left work undone (rotate-master-key): its message, and exit code 1. */
export class CommandIncomplete extends BaseError {
  override name = 'CommandIncomplete';
  readonly code = 'INTERNAL_ERROR';
}

/** The wallet types whose new wallets may take an existing key (--kms-key-id). */
const ADOPTING_TYPES = WALLET_TYPES.filter((type) => CUSTODIANS[type].adoptsKey);

const USAGE = `Usage: mountain-admin <command> [options] [--json]
       (in a clone of the repository: npm run admin -- <command> [options] [--json])

Commands:
  create-project --name <name> [--owner-type dedicated|shared --allow-shared-wallet]
                 [--wallet-type ${WALLET_TYPES.join('|')} [--kms-key-id <key id or ARN>]]
      Creates a project with its mainnet and testnet system wallets; prints its API key once. Its wallets are
      its own (dedicated) unless --owner-type shared comes with --allow-shared-wallet: any project on the shared
      wallet can act as the others toward contracts that trust its address. aws-kms makes one KMS key per
      wallet (alias/mountain-<deployment>-project-<id>-<mainnet|testnet>); --kms-key-id adopts an existing key
      (an enabled ECC_SECG_P256K1 SIGN_VERIFY key) for both wallets instead.
  rotate-key --project <id>
      Revokes the project's API key and prints a new one.
  rotate-master-key [--batch-size 100]
      Re-seals every secret at rest (wallet mnemonic, webhook secrets) under the first key of MASTER_KEYS, and
      reports per kind of secret how many it re-sealed and how many remain. Killed or failed, run it again: it goes
      on where it stopped, and a second run changes nothing. Start every API and worker with the new MASTER_KEYS
      first (new key, then the old one), then run it; once it says done, the old key can leave MASTER_KEYS.
  create-user --email <email> [--name <name>]
  add-member --project <id> --user <email|id> --role admin|editor|reader
      Adds the user to the project, or changes their role.
  remove-member --project <id> --user <email|id>
      Removes the user from the project and revokes every access token of theirs.
  issue-token --user <email|id> [--project <id>] [--expires-in 24h]
      Prints an access token and its token id (expiry as 30m, 24h, 7d or seconds; at most 30d). With
      --project the token is limited to that project.
  console-link --user <email|id> [--project <id>] [--expires-in 15m]
      Prints a one-time sign-in link to the developer console for the user (good once, for 15 minutes unless
      --expires-in says otherwise, at most 1h). With --project the console acts in that project only.
  revoke-token --token-id <id>
      Revokes the access token with that id (as issue-token printed it).
  revoke-user-tokens --user <email|id>
      Revokes every access token issued to the user until now.
  set-scan --subscription <uuid> --enabled true|false
      Stops an event notifier subscription's scanning, or resumes it from where it stopped (at once).
  cancel-transaction --transaction <uuid>
      Cancels a transaction of any project that is not mined, as cancel-transaction does: not sent yet, it is
      cancelled at once; sent, it is cancelling until its cancelling transfer (or the original) is mined. A
      running worker sends the transfer (for a Fireblocks wallet, asks Fireblocks to cancel or drop it). Mined, or
      ended, it is refused (exit 2, nothing changed).
  list-projects
      Every project: id, name, API key (masked), wallet owner type, members, creation time.
  list-users
      Every user: id, email, name, projects with their role, creation time.
  list-members --project <id>
      The project's members: user id, email, name, role, since when.

--json prints one JSON document on stdout instead of lines for a person, on every command; an error is then
{"error": "<message>"} on stderr. Exit codes: 0 done, 2 a usage error (nothing changed), 1 anything else.

The database is DATABASE_URL, or the embedded one of npm start (started for the command if not running).`;

const OPTIONS = {
  name: { type: 'string' },
  'owner-type': { type: 'string' },
  'allow-shared-wallet': { type: 'boolean' },
  'wallet-type': { type: 'string' },
  'kms-key-id': { type: 'string' },
  project: { type: 'string' },
  email: { type: 'string' },
  user: { type: 'string' },
  role: { type: 'string' },
  'expires-in': { type: 'string' },
  subscription: { type: 'string' },
  enabled: { type: 'string' },
  'token-id': { type: 'string' },
  transaction: { type: 'string' },
  'batch-size': { type: 'string' },
  json: { type: 'boolean' },
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function scanInput(values: Values): { subscriptionId: string; enabled: boolean } {
  const subscriptionId = required(values, 'subscription');
  if (!UUID.test(subscriptionId)) throw new UsageError(`--subscription must be a subscription id (a uuid)`);
  const enabled = oneOf(required(values, 'enabled'), ['true', 'false'] as const, 'enabled');
  return { subscriptionId, enabled: enabled === 'true' };
}

const COMMANDS = [
  'create-project',
  'rotate-key',
  'rotate-master-key',
  'create-user',
  'add-member',
  'remove-member',
  'issue-token',
  'console-link',
  'revoke-token',
  'revoke-user-tokens',
  'set-scan',
  'cancel-transaction',
  'list-projects',
  'list-users',
  'list-members',
];

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
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);

  // Beside a running `npm start`, its ports (and database) rather than the defaults.
  const env = withRunningPlatform(process.env, path.resolve(REPO_ROOT, process.env.DATA_DIR ?? '.data'));
  const config = loadConfig(env);
  // Validate every option before touching the database.
  const input: CommandInput = {
    ...(command === 'create-project' ? { name: required(values, 'name') } : {}),
    ...(command === 'create-user' && values.name !== undefined ? { name: values.name } : {}),
    allowSharedWallet: values['allow-shared-wallet'] === true,
    expiresIn: expiresIn(values['expires-in'] ?? (command === 'console-link' ? '15m' : '24h')),
  };
  const ownerType = oneOf(values['owner-type'], ['dedicated', 'shared'] as const, 'owner-type');
  if (ownerType) input.ownerType = ownerType;
  const walletType = oneOf(values['wallet-type'], WALLET_TYPES, 'wallet-type');
  if (walletType) input.walletType = walletType;
  const kmsKeyId = values['kms-key-id'];
  if (kmsKeyId !== undefined) {
    if (!walletType || !CUSTODIANS[walletType].adoptsKey) {
      throw new UsageError(`--kms-key-id goes with --wallet-type ${ADOPTING_TYPES.join(' or ')}`);
    }
    if (
      !/^(arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:(key|alias)\/[A-Za-z0-9/_-]{1,256}|alias\/[A-Za-z0-9/_-]{1,256}|[0-9a-fA-F-]{36}|mrk-[0-9a-f]{32})$/.test(
        kmsKeyId,
      )
    ) {
      throw new UsageError('--kms-key-id must be a KMS key id, key ARN, alias name (alias/…) or alias ARN');
    }
    input.kmsKeyId = kmsKeyId;
  }
  if (values.project !== undefined) input.project = positiveInt(values.project, 'project');
  if (values['batch-size'] !== undefined) {
    if (command !== 'rotate-master-key') throw new UsageError('--batch-size goes with rotate-master-key');
    input.batchSize = positiveInt(values['batch-size'], 'batch-size');
  }
  const role = oneOf(values.role, ROLES, 'role');
  if (role) input.role = role;
  if (input.ownerType === 'shared' && !input.allowSharedWallet) {
    throw new UsageError(
      `--owner-type shared needs --allow-shared-wallet: ${SHARED_WALLET_RISK} (leave --owner-type out for a dedicated wallet)`,
    );
  }
  if (['rotate-key', 'add-member', 'remove-member', 'list-members'].includes(command) && input.project === undefined) {
    throw new UsageError('--project is required');
  }
  if (command === 'add-member' && !input.role) throw new UsageError('--role is required');
  if (command === 'create-user') {
    input.email = required(values, 'email');
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.email)) throw new UsageError(`--email is not an email address`);
  }
  if (command === 'console-link' && input.expiresIn > CONSOLE_LINK_MAX_SECONDS) {
    throw new UsageError('--expires-in: a console link lives at most 1h');
  }
  if (['add-member', 'remove-member', 'issue-token', 'console-link', 'revoke-user-tokens'].includes(command)) {
    input.userRef = required(values, 'user');
  }
  if (command === 'set-scan') input.scan = scanInput(values);
  if (command === 'cancel-transaction') {
    input.transactionId = required(values, 'transaction').toLowerCase();
    if (!UUID.test(input.transactionId)) throw new UsageError('--transaction must be a transaction id (a uuid)');
  }
  if (command === 'revoke-token') {
    input.tokenId = required(values, 'token-id').toLowerCase();
    if (!UUID.test(input.tokenId))
      throw new UsageError('--token-id must be a token id (a uuid, as issue-token printed it)');
  }

  // Only a command line that holds up loads the database's and the commands' modules (viem, pg, graphile-worker…):
  // a usage error is answered in a fraction of the time.
  const [{ openDatabase }, { runCommand }, { DatabaseError, UniqueViolationError }] = await Promise.all([
    import('#api/runtime/database.ts'),
    import('./commands.ts'),
    import('#api/db/db.ts'),
  ]);
  const database = await openDatabase(config, { embeddedPort: Number(env.EMBEDDED_PG_PORT ?? 54320) });
  try {
    const output = await runCommand(command, input, database.db, config, (line) => console.error(line));
    if (values.json) print(JSON.stringify(output.json, null, 2));
    else for (const line of output.lines) print(line);
    if (output.incomplete) throw new CommandIncomplete(output.incomplete);
  } catch (error) {
    if (error instanceof UniqueViolationError) throw new UsageError('that already exists');
    if (error instanceof DatabaseError && error.pgCode === '23503') throw new UsageError('no such project or user');
    if (error instanceof WalletProviderNotConfiguredError) throw new UsageError(error.message);
    if (error instanceof CustodyProvisioningError) throw new CustodianRefusal(error.message);
    throw error;
  } finally {
    await database.stop();
  }
}

/**
 * The CLI as a program: `mountain-admin` (bin/mountain-admin.js) and `npm run admin` run this. Usage errors exit 2
 * with their message (a JSON document with --json), anything else exits 1 with its stack.
 */
export async function main(argv: string[]): Promise<void> {
  const json = argv.includes('--json');
  try {
    await runAdmin(argv, (line) => console.log(line));
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(
        json
          ? JSON.stringify({ error: error.message })
          : `error: ${error.message}\nRun "mountain-admin --help" for usage.`,
      );
      process.exit(2);
    }
    // Refused or left undone, with a message for the operator: the message, without a stack.
    if (
      error instanceof CustodianRefusal ||
      error instanceof CommandIncomplete ||
      error instanceof MasterKeyMismatchError
    ) {
      console.error(json ? JSON.stringify({ error: error.message }) : `error: ${error.message}`);
      process.exit(1);
    }
    console.error(error);
    process.exit(1);
  }
}

// Run directly (`node --import tsx src/cli/admin.ts`, as `npm run admin` does); the bin script calls main() itself.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main(process.argv.slice(2));
}
