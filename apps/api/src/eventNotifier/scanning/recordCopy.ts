import { randomFillSync } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DecodedLog } from './readRange.ts';

/** PostgreSQL's timestamps count microseconds from 2000-01-01 UTC; Unix time counts seconds from 1970. */
const PG_EPOCH_SECONDS = 946_684_800;
const COLUMNS = 12;
const COPY_RECORDS = `COPY event_notifier_records
  (id, subscription_id, block_timestamp, transaction_hash, block_number, block_hash, transaction_index, log_index,
   decoded_log, next_attempt_at, contract_address, event_signature)
  FROM STDIN (FORMAT binary)`;
/** The binary format's signature, then flags and the header extension's length (both 0). */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/**
 * A row's bytes besides its hashes, decoded log, address and event: the field count, each field's length, the
 * fixed-size values.
 */
const ROW_BYTES = 2 + 4 * COLUMNS + 16 + 16 + 8 + 8 + 4 + 4 + 8;

/**
 * Inserts a range's new records with `COPY … FROM STDIN` in PostgreSQL's binary format: the server reads each value
 * as it is stored, where an INSERT from a JSON document parses the document, then every value from text (a third
 * of the insert's cost). Every record is new (a range met again goes through the INSERT that skips existing ones);
 * one already stored fails the whole copy with a unique violation. The ids are made here (random, version 4, as
 * gen_random_uuid makes them): a column default the server must call per row would make it copy row by row.
 * `next_attempt_at` is the transaction's `now()`, read first. Returns the rows copied.
 */
export async function copyRecords(
  client: pg.PoolClient,
  subscriptionId: string,
  logs: readonly DecodedLog[],
  timestampOf: (log: DecodedLog) => bigint,
): Promise<number> {
  const { rows } = await client.query<{ now: string }>(
    `SELECT ((extract(epoch FROM now()) - ${PG_EPOCH_SECONDS}) * 1000000)::int8::text AS now`,
  );
  const stream = client.query(copyFrom(COPY_RECORDS));
  const data = encodeRecords(subscriptionId, logs, timestampOf, Number(rows[0]?.now));
  await pipeline(Readable.from([data]), stream);
  return stream.rowCount;
}

/** The COPY data of `logs`; `now` in microseconds since 2000-01-01. */
function encodeRecords(
  subscriptionId: string,
  logs: readonly DecodedLog[],
  timestampOf: (log: DecodedLog) => bigint,
  now: number,
): Buffer {
  const documents = logs.map((log) => JSON.stringify(log.args));
  let size = HEADER.length + 2;
  // At most three bytes per UTF-16 unit: one allocation, never too small.
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i] as DecodedLog;
    size += ROW_BYTES + log.transactionHash.length + log.blockHash.length + 3 * (documents[i] as string).length;
    size += (log.address?.length ?? 0) + 3 * (log.eventSignature?.length ?? 0);
  }
  const out = Buffer.allocUnsafe(size);
  const ids = randomFillSync(Buffer.allocUnsafe(16 * logs.length));
  const subscription = Buffer.from(subscriptionId.replaceAll('-', ''), 'hex');
  // Written byte by byte: Buffer's write methods check their arguments on every call, which costs more than the
  // bytes at this size.
  let at = HEADER.copy(out, 0);
  const int32 = (value: number) => {
    out[at] = value >>> 24;
    out[at + 1] = value >>> 16;
    out[at + 2] = value >>> 8;
    out[at + 3] = value;
    at += 4;
  };
  // An int8 from a safe integer (negative too: a timestamp before 2000), as two halves.
  const int64 = (value: number) => {
    const high = Math.floor(value / 2 ** 32);
    int32(high);
    int32(value - high * 2 ** 32);
  };
  // A hash: hexadecimal, a byte per character.
  const ascii = (text: string) => {
    int32(text.length);
    for (let k = 0; k < text.length; k++) out[at + k] = text.charCodeAt(k);
    at += text.length;
  };
  const bytes = (from: Uint8Array, start: number) => {
    int32(16);
    for (let k = 0; k < 16; k++) out[at + k] = from[start + k] as number;
    at += 16;
  };
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i] as DecodedLog;
    // The field count, then each field: its length, then its value.
    out[at] = 0;
    out[at + 1] = COLUMNS;
    at += 2;
    bytes(ids, 16 * i);
    out[at - 10] = ((out[at - 10] as number) & 0x0f) | 0x40; // version 4
    out[at - 8] = ((out[at - 8] as number) & 0x3f) | 0x80; // variant 10
    bytes(subscription, 0);
    int32(8);
    int64((Number(timestampOf(log)) - PG_EPOCH_SECONDS) * 1_000_000);
    ascii(log.transactionHash);
    int32(8);
    int64(Number(log.blockNumber));
    ascii(log.blockHash);
    int32(4);
    int32(log.transactionIndex);
    int32(4);
    int32(log.logIndex);
    const lengthAt = at;
    at += 4;
    const written = out.write(documents[i] as string, at, 'utf8');
    at = lengthAt;
    int32(written);
    at += written;
    int32(8);
    int64(now);
    // NULL (length -1) for the subscription's own address and first event: most records.
    if (log.address === null) int32(-1);
    else ascii(log.address);
    if (log.eventSignature === null) int32(-1);
    else {
      const at0 = at;
      at += 4;
      const n = out.write(log.eventSignature, at, 'utf8');
      at = at0;
      int32(n);
      at += n;
    }
  }
  at = out.writeInt16BE(-1, at); // the trailer
  return out.subarray(0, at);
}
