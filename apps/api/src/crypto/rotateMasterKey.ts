import type { Db } from '#api/db/db.ts';
import { CHECK_COLUMN, SEALED_COLUMNS, type SealedColumn, sealedRows, sealedUnder } from './sealedColumns.ts';
import { type MasterKeyRing, type MasterKeys, open, ringOf, SecretBoxError, seal, sealedKeyId } from './secretBox.ts';

/** What a rotation did to one sealed column. Counts and ids only: never a secret. */
export interface ColumnRotation {
  name: string;
  /** Boxes this run re-sealed under the current key. */
  resealed: number;
  /** Boxes under the current key when the run ended (those it re-sealed included). */
  current: number;
  /** Boxes still under another key when the run ended: unreadable ones, or written meanwhile under an older key. */
  remaining: number;
  /** The rows whose box opens under no configured key, with the key it names. */
  unreadable: { key: string; sealedUnder: string }[];
}

export interface RotationReport {
  currentKeyId: string;
  keyIds: string[];
  columns: ColumnRotation[];
  /** Every box is under the current key (the check value too): the other keys may leave MASTER_KEYS. */
  done: boolean;
}

export interface RotationOptions {
  /** Rows re-sealed per database transaction (default 100). */
  batchSize?: number;
  /** Called after each committed batch (progress for a person; counts only). */
  onBatch?: (column: string, resealed: number) => void;
}

/**
 * Re-seals every secret under the ring's current key: per sealed column, batches of rows in key order, each batch
 * one database transaction that locks its rows, opens each box under whichever key of the ring sealed it and writes
 * it sealed under the current key. A box already under the current key is never touched, so a run that was killed
 * resumes where it stopped, and a second run changes nothing. The check value goes last, and only when every other
 * box is under the current key: a process started with the current key alone refuses to run until then
 * (masterKeyCheck.ts).
 */
export async function rotateMasterKey(
  db: Db,
  keys: MasterKeys,
  options: RotationOptions = {},
): Promise<RotationReport> {
  const ring = ringOf(keys);
  const batchSize = options.batchSize ?? 100;
  const columns: ColumnRotation[] = [];
  for (const column of SEALED_COLUMNS) {
    if (column === CHECK_COLUMN && columns.some((c) => c.remaining > 0)) {
      columns.push({ ...(await count(db, ring, column)), name: column.name, resealed: 0, unreadable: [] });
      continue;
    }
    const rotation: ColumnRotation = { name: column.name, resealed: 0, current: 0, remaining: 0, unreadable: [] };
    let after: string | null = null;
    for (;;) {
      const batch = await db.transaction(async (client) => {
        const { rows } = await client.query<{ key: string; sealed: Buffer }>(
          `SELECT ${column.key}::text AS key, ${column.column} AS sealed FROM ${column.table}
            WHERE ${sealedRows(column)} AND NOT ${sealedUnder(column, 1)}
              AND ($2::${column.keyType} IS NULL OR ${column.key} > $2::${column.keyType})
            ORDER BY ${column.key} LIMIT $3 FOR UPDATE`,
          [Buffer.from(ring.current.id, 'hex'), after, batchSize],
        );
        let resealed = 0;
        for (const row of rows) {
          const context = column.context(row.key);
          let plaintext: string;
          try {
            plaintext = open(ring, row.sealed, context);
          } catch (error) {
            if (!(error instanceof SecretBoxError)) throw error;
            rotation.unreadable.push({
              key: row.key,
              sealedUnder: sealedKeyId(row.sealed) ?? 'a key of before key ids',
            });
            continue;
          }
          await client.query(`UPDATE ${column.table} SET ${column.column} = $1 WHERE ${column.key} = $2`, [
            seal(ring, plaintext, context),
            row.key,
          ]);
          resealed += 1;
        }
        return { resealed, last: rows.at(-1)?.key ?? null };
      });
      rotation.resealed += batch.resealed;
      if (batch.last === null) break;
      after = batch.last;
      if (batch.resealed > 0) options.onBatch?.(column.name, rotation.resealed);
    }
    columns.push({ ...rotation, ...(await count(db, ring, column)) });
  }
  return {
    currentKeyId: ring.current.id,
    keyIds: ring.keys.map((k) => k.id),
    columns,
    done: columns.every((c) => c.remaining === 0),
  };
}

async function count(
  db: Db,
  ring: MasterKeyRing,
  column: SealedColumn,
): Promise<{ current: number; remaining: number }> {
  const { rows } = await db.query<{ current: number; remaining: number }>(
    `SELECT count(*) FILTER (WHERE ${sealedUnder(column, 1)})::int AS current,
            count(*) FILTER (WHERE NOT ${sealedUnder(column, 1)})::int AS remaining
       FROM ${column.table} WHERE ${sealedRows(column)}`,
    [Buffer.from(ring.current.id, 'hex')],
  );
  return rows[0] as { current: number; remaining: number };
}
