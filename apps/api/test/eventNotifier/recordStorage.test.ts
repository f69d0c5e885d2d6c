// How event records are stored. Their keys are checked once per statement instead of per row (migration 031): a
// record needs its subscription, a removal notice its record, and a subscription deleted takes its records and
// notices with it, including when an insert and the deletion race. A range's new records are copied in
// PostgreSQL's binary format (recordCopy.ts): every value reads back as written.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DatabaseError, translateDbError, UniqueViolationError } from '#api/db/db.ts';
import type { DecodedLog } from '#api/eventNotifier/scanning/logRanges.ts';
import { copyRecords } from '#api/eventNotifier/scanning/recordCopy.ts';
import { createProject } from '#api/projects/projects.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';

describe('event records in storage', () => {
  let database: TestDatabase;
  let projectId: number;

  before(async () => {
    database = await createTestDatabase();
    const keys = await loadWalletKeys(database.db, randomBytes(32));
    projectId = (await createProject(database.db, keys, { projectName: 'Keys', keyMode: 'test' })).project.id;
  });
  after(() => database?.drop());

  const subscription = async () => {
    const { rows } = await database.db.query<{ id: string }>(
      `INSERT INTO event_notifier_subscriptions (project_id, subscription_name, network_id, address,
         formatted_abi_event, initial_block_number, scan_interval, webhook_enabled, webhook_max_retries,
         webhook_secret, webhook_secret_masked)
       VALUES ($1, 'Keys', 1337, '0x0000000000000000000000000000000000000001', 'event E()', 0, 5, false, 0, '\\x00', '…')
       RETURNING id`,
      [projectId],
    );
    return (rows[0] as { id: string }).id;
  };
  const hash = () => `0x${randomBytes(32).toString('hex')}`;
  /** Inserts `count` records of one block in one statement, as a range's write does. */
  const insertRecords = (q: { query: typeof database.db.query }, subscriptionId: string, count: number) =>
    q.query(
      `INSERT INTO event_notifier_records (subscription_id, block_timestamp, transaction_hash, block_number,
         block_hash, transaction_index, log_index, decoded_log, next_attempt_at)
       SELECT $1, now(), $2, 7, $3, 0, i, '{}', now() FROM generate_series(0, $4 - 1) AS i
       RETURNING id`,
      [subscriptionId, hash(), hash(), count],
    );
  const count = async (subscriptionId: string) =>
    (
      await database.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM event_notifier_records WHERE subscription_id = $1',
        [subscriptionId],
      )
    ).rows[0]?.n;
  const refusal = (error: unknown) => {
    const e = translateDbError(error);
    return e instanceof DatabaseError ? e.pgCode : String(error);
  };

  it('a record of a subscription that does not exist is refused, the whole statement with it', async () => {
    const existing = await subscription();
    await assert.rejects(
      database.db.query(
        `INSERT INTO event_notifier_records (subscription_id, block_timestamp, transaction_hash, block_number,
           block_hash, transaction_index, log_index, decoded_log)
         VALUES ($1, now(), $3, 1, $3, 0, 0, '{}'), ($2, now(), $3, 1, $3, 0, 1, '{}')`,
        [existing, randomUUID(), hash()],
      ),
      (error) => refusal(error) === '23503',
    );
    assert.equal(await count(existing), 0);
  });

  it('a removal notice of a record that does not exist is refused', async () => {
    const id = await subscription();
    await assert.rejects(
      database.db.query(
        `INSERT INTO event_notifier_records (subscription_id, removal_of, block_timestamp, transaction_hash,
           block_number, block_hash, transaction_index, log_index, decoded_log)
         VALUES ($1, $2, now(), $3, 1, $3, 0, 0, '{}')`,
        [id, randomUUID(), hash()],
      ),
      (error) => refusal(error) === '23503',
    );
  });

  it('deleting a subscription deletes its records and their removal notices, and no other', async () => {
    const [gone, kept] = [await subscription(), await subscription()];
    const { rows } = await insertRecords(database.db, gone, 3);
    await insertRecords(database.db, kept, 2);
    await database.db.query(
      `INSERT INTO event_notifier_records (subscription_id, removal_of, block_timestamp, transaction_hash,
         block_number, block_hash, transaction_index, log_index, decoded_log)
       SELECT subscription_id, id, block_timestamp, transaction_hash, block_number, block_hash, transaction_index,
              log_index, decoded_log FROM event_notifier_records WHERE id = $1`,
      [rows[0]?.id],
    );
    assert.equal(await count(gone), 4);
    await database.db.query('DELETE FROM event_notifier_subscriptions WHERE id = $1', [gone]);
    assert.equal(await count(gone), 0);
    assert.equal(await count(kept), 2);
  });

  it('an insert and the deletion of its subscription wait for each other: nothing is left behind', async () => {
    // The insert first: the deletion waits for it to commit, then takes its records.
    const first = await subscription();
    const inserting = await database.db.pool.connect();
    try {
      await inserting.query('BEGIN');
      await insertRecords(inserting, first, 50);
      const deleting = database.db.query('DELETE FROM event_notifier_subscriptions WHERE id = $1', [first]);
      const order: string[] = [];
      const deleted = deleting.then(() => order.push('deleted'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      order.push('committing');
      await inserting.query('COMMIT');
      await deleted;
      assert.deepEqual(order, ['committing', 'deleted']);
      assert.equal(await count(first), 0);
    } finally {
      inserting.release();
    }

    // The deletion first: the insert waits for it to commit, then is refused.
    const second = await subscription();
    const deletingClient = await database.db.pool.connect();
    try {
      await deletingClient.query('BEGIN');
      await deletingClient.query('DELETE FROM event_notifier_subscriptions WHERE id = $1', [second]);
      const inserted = insertRecords(database.db, second, 50).then(
        () => 'inserted',
        (error: unknown) => refusal(error),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await deletingClient.query('COMMIT');
      assert.equal(await inserted, '23503');
      assert.equal(await count(second), 0);
    } finally {
      deletingClient.release();
    }
  });

  it('a range copied in the binary format reads back exactly, in one statement with the transaction’s now()', async () => {
    const id = await subscription();
    const log = (
      logIndex: number,
      blockNumber: bigint,
      args: Record<string, unknown>,
      of: Pick<DecodedLog, 'address' | 'eventSignature'> = { address: null, eventSignature: null },
    ): DecodedLog => ({
      ...of,
      blockNumber,
      blockHash: hash() as `0x${string}`,
      blockTimestamp: undefined,
      transactionHash: hash() as `0x${string}`,
      transactionIndex: 2 ** 31 - 1 - logIndex,
      logIndex,
      args,
    });
    const logs = [
      log(0, 1n, { from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: '1' }),
      // A block number past 32 bits, text past ASCII (and a quote, a backslash, a tab), nesting, booleans.
      // Another contract and event than the subscription's first (a name past ASCII too); the others NULL.
      log(
        1,
        2n ** 40n + 3n,
        { note: 'é ü 漢字 🚀 "q" \\ \t', ok: true, list: ['1', { deep: null }] },
        { address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', eventSignature: 'Notiz_é(string,bool,bytes32[])' },
      ),
      log(2, 9_007_199_254_740_991n, {}),
    ];
    // Seconds before 2000 (a negative PostgreSQL timestamp), at the Unix epoch, and a 2023 one.
    const seconds = [946_684_799n, 0n, 1_700_000_000n];
    const timestampOf = (l: DecodedLog) => seconds[l.logIndex] as bigint;
    const client = await database.db.pool.connect();
    let now: Date;
    try {
      await client.query('BEGIN');
      assert.equal(await copyRecords(client, id, logs, timestampOf), 3);
      now = (await client.query<{ now: Date }>('SELECT now()')).rows[0]?.now as Date;
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await database.db.query(
      `SELECT id, block_timestamp, transaction_hash, block_number::text, block_hash, transaction_index, log_index,
              decoded_log, next_attempt_at, status, contract_address, event_signature
         FROM event_notifier_records WHERE subscription_id = $1 ORDER BY log_index`,
      [id],
    );
    assert.deepEqual(
      rows.map((r) => ({ ...r, id: undefined })),
      logs.map((l, i) => ({
        id: undefined,
        block_timestamp: new Date(Number(seconds[i]) * 1000),
        transaction_hash: l.transactionHash,
        block_number: String(l.blockNumber),
        block_hash: l.blockHash,
        transaction_index: l.transactionIndex,
        log_index: l.logIndex,
        decoded_log: l.args,
        next_attempt_at: now,
        status: 'scanned',
        contract_address: l.address,
        event_signature: l.eventSignature,
      })),
    );
    // Version 4 ids, all different.
    assert.equal(new Set(rows.map((r) => r.id)).size, 3);
    for (const r of rows) assert.match(r.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('a copy holding a record already stored fails whole, as a unique violation, and the connection goes on', async () => {
    const id = await subscription();
    const stored: DecodedLog = {
      blockNumber: 5n,
      blockHash: hash() as `0x${string}`,
      blockTimestamp: 1_700_000_000n,
      transactionHash: hash() as `0x${string}`,
      transactionIndex: 0,
      address: null,
      eventSignature: null,
      logIndex: 0,
      args: {},
    };
    const client = await database.db.pool.connect();
    try {
      assert.equal(await copyRecords(client, id, [stored], (l) => l.blockTimestamp as bigint), 1);
      const again = [{ ...stored, logIndex: 1 }, stored];
      await assert.rejects(
        copyRecords(client, id, again, (l) => l.blockTimestamp as bigint),
        (error) => {
          return translateDbError(error) instanceof UniqueViolationError;
        },
      );
      assert.equal(await count(id), 1);
      assert.equal((await client.query('SELECT 1 AS one')).rows[0]?.one, 1);
    } finally {
      client.release();
    }
  });
});
