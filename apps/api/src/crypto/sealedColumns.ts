import { secretContext } from '#api/eventNotifier/rows.ts';
import { endpointSecretContext } from '#api/webhooks/endpoints/endpointRows.ts';
import { KEY_ID_BYTES, VERSION } from './secretBox.ts';

/** A deployment secret (the wallet mnemonic, the master key check value) is bound to its name. */
export const deploymentSecretContext = (name: string) => `deployment_secrets:${name}`;

/** The deployment secret whose opening at start tells that the configured master keys are the database's. */
export const MASTER_KEY_CHECK = 'master-key-check';

/**
 * A column holding secrets sealed under the master key (secretBox.ts), and how each row's box is bound to it. The
 * list is every such column of the schema (`test/masterKeyRotation.test.ts` holds it to the schema's bytea
 * columns): the start check samples it, and a rotation re-seals it.
 */
export interface SealedColumn {
  /** How reports name it. */
  readonly name: string;
  readonly table: string;
  /** The primary key, of which the context is made, and its type. */
  readonly key: string;
  readonly keyType: 'uuid' | 'text';
  readonly column: string;
  /** Which rows of the table (an SQL condition), when not all. */
  readonly rows?: string;
  context(key: string): string;
}

const deploymentSecrets = { table: 'deployment_secrets', key: 'name', keyType: 'text', column: 'ciphertext' } as const;

/** The secrets, then the check value: re-sealed last, it is under the current key only when every secret is. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  ...(['secret', 'previous_secret'] as const).map((column) => ({
    name: `webhook_endpoints.${column}`,
    table: 'webhook_endpoints',
    key: 'id',
    keyType: 'uuid' as const,
    column,
    context: endpointSecretContext,
  })),
  ...(['webhook_secret', 'previous_webhook_secret'] as const).map((column) => ({
    name: `event_notifier_subscriptions.${column}`,
    table: 'event_notifier_subscriptions',
    key: 'id',
    keyType: 'uuid' as const,
    column,
    context: secretContext,
  })),
  {
    ...deploymentSecrets,
    name: 'deployment_secrets.ciphertext',
    rows: `name <> '${MASTER_KEY_CHECK}'`,
    context: deploymentSecretContext,
  },
  {
    ...deploymentSecrets,
    name: 'the master key check value',
    rows: `name = '${MASTER_KEY_CHECK}'`,
    context: deploymentSecretContext,
  },
];

/** The check value's entry (the last). */
export const CHECK_COLUMN = SEALED_COLUMNS.at(-1) as SealedColumn;

/** An SQL condition: the row's box is sealed under the master key whose id is the parameter `$<param>` (bytea). */
export const sealedUnder = (column: SealedColumn, param: number) =>
  `(get_byte(${column.column}, 0) = ${VERSION} AND substring(${column.column} from 2 for ${KEY_ID_BYTES}) = $${param})`;

/** An SQL condition: the rows of the entry that hold a box. */
export const sealedRows = (column: SealedColumn) =>
  `${column.column} IS NOT NULL${column.rows ? ` AND ${column.rows}` : ''}`;
