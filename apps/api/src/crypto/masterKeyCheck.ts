import type { Db } from '#api/db/db.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import {
  CHECK_COLUMN,
  deploymentSecretContext,
  MASTER_KEY_CHECK,
  SEALED_COLUMNS,
  type SealedColumn,
  sealedRows,
} from './sealedColumns.ts';
import { isSealedUnderCurrent, type MasterKeys, open, ringOf, SecretBoxError, seal, sealedKeyId } from './secretBox.ts';

const CHECK_PLAINTEXT = 'mountain master key check';

/** Where to read how the keys work; every refusal ends with it. */
const SEE = 'See the operations guide, "Backups and keys".';

/** The configured master keys are not this database's: a process that went on would seal what the others cannot open. */
export class MasterKeyMismatchError extends BaseError {
  override name = 'MasterKeyMismatchError';
  readonly code = 'INTERNAL_ERROR';
}

export interface MasterKeyCheck {
  /** The key the check value is sealed under. */
  checkKeyId: string;
  /** Whether that is the current key: true unless a rotation to the current key has yet to finish. */
  rotated: boolean;
}

/**
 * Whether the configured master keys open this database's check value: what every role asks before it starts, so a
 * process with a wrong key stops at once with this error's message, before it seals a secret the others cannot open
 * or fails on the first one it reads. A database without a check value (a new one, or one from before the check)
 * gets one under the current key, once the secrets it already holds are seen to open.
 */
export async function checkMasterKey(db: Db, keys: MasterKeys): Promise<MasterKeyCheck> {
  const ring = ringOf(keys);
  const ids = ring.keys.map((k) => k.id).join(', ');
  const configured =
    ring.keys.length === 1
      ? `the configured master key (MASTER_KEY or MASTER_KEYS: id ${ids})`
      : `any of the configured master keys (MASTER_KEYS: ids ${ids})`;
  let stored = await readCheck(db);
  if (!stored) {
    for (const column of SEALED_COLUMNS.filter((c) => c !== CHECK_COLUMN)) {
      const sample = await oneBox(db, column);
      if (!sample) continue;
      try {
        open(ring, sample.sealed, column.context(sample.key));
      } catch (error) {
        throw new MasterKeyMismatchError(
          `This database's secrets do not open under ${configured}: ${column.name} of ${sample.key} is sealed under ` +
            `${keyName(sample.sealed)}. Start every process with the key this database was created with. ${SEE}`,
          { cause: error },
        );
      }
    }
    await db.query('INSERT INTO deployment_secrets (name, ciphertext) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      MASTER_KEY_CHECK,
      seal(ring, CHECK_PLAINTEXT, deploymentSecretContext(MASTER_KEY_CHECK)),
    ]);
    stored = (await readCheck(db)) as Buffer;
  }
  let opened: string;
  try {
    opened = open(ring, stored, deploymentSecretContext(MASTER_KEY_CHECK));
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    throw new MasterKeyMismatchError(
      `The master key is not this database's: its check value is sealed under ${keyName(stored)}, which is not ` +
        `${configured}. Start every process with the database's key; during a rotation MASTER_KEYS lists the ` +
        `new key first and the old one after it, until mountain-admin rotate-master-key has finished. ${SEE}`,
      { cause: error },
    );
  }
  if (opened !== CHECK_PLAINTEXT) throw new MasterKeyMismatchError(`The master key check value was altered. ${SEE}`);
  return { checkKeyId: sealedKeyId(stored) ?? 'none', rotated: isSealedUnderCurrent(ring, stored) };
}

const keyName = (sealed: Buffer) => {
  const id = sealedKeyId(sealed);
  return id ? `master key ${id}` : 'a master key of before key ids';
};

async function readCheck(db: Db): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ ciphertext: Buffer }>('SELECT ciphertext FROM deployment_secrets WHERE name = $1', [
    MASTER_KEY_CHECK,
  ]);
  return rows[0]?.ciphertext;
}

async function oneBox(db: Db, column: SealedColumn): Promise<{ key: string; sealed: Buffer } | undefined> {
  const { rows } = await db.query<{ key: string; sealed: Buffer }>(
    `SELECT ${column.key}::text AS key, ${column.column} AS sealed FROM ${column.table}
      WHERE ${sealedRows(column)} LIMIT 1`,
  );
  return rows[0];
}
