// The records' keys, checked once per statement instead of per row (migration 031): a record needs its
// subscription, a removal notice its record, and a subscription deleted takes its records and notices with it,
// including when an insert and the deletion race.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DatabaseError, translateDbError } from '#api/db/db.ts';
import { createProject } from '#api/projects/projects.ts';
import { loadWalletKeys } from '#api/wallets/walletKeys.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';

describe('event records keep their keys', () => {
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
});
