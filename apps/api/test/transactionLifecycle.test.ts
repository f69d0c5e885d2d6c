// The transaction state machine (src/transactions/lifecycle.ts): it alone changes `transactions.status`; each of its
// statements moves exactly the rows whose status is an allowed `from` of its cause, to its `to`, and the outbox
// trigger writes the very event the table says (or none). Each statement is run against a row in every status.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { REPO_ROOT } from '#api/config/config.ts';
import type { Db } from '#api/db/db.ts';
import { TRANSACTION_STATUSES } from '#api/schemas/entities.ts';
import {
  cancelUnsent,
  failAfterPredecessors,
  failBroadcastOfWallet,
  failWaitingOfWallet,
  markCancelBlocked,
  markCancelling,
  markCancelMined,
  markCustodianClaimed,
  markCustodianRefused,
  markEstimateFailed,
  markEstimateReverted,
  markFinal,
  markFundsTimedOut,
  markMined,
  markMinedReverted,
  markMonitorFailed,
  markNodeRefused,
  markNonceAllocated,
  markReorged,
  markSendLater,
  markSent,
  recordCustodianView,
} from '#api/transactions/lifecycle.ts';
import { lifecycleEdges } from '#api/transactions/lifecycleDiagram.ts';
import type { WalletNetwork } from '#api/transactions/senders.ts';
import { type Cause, TRANSITIONS, type TransactionStatus, transitionOf } from '#api/transactions/transitionTable.ts';
import { TRANSACTION_EVENT_TYPES } from '#api/webhooks/eventTypes.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';

const LIFECYCLE = 'apps/api/src/transactions/lifecycle.ts';

/**
 * The statements of `text` that set a transaction's status: an UPDATE of `transactions` whose SET list assigns
 * `status`, an INSERT into `transactions` naming the `status` column, a trigger function assigning `NEW.status`.
 */
function statusWrites(text: string): string[] {
  const found: string[] = [];
  const update = /UPDATE\s+(?:ONLY\s+)?(?:public\.)?"?transactions"?(?:\s+(?:AS\s+)?(?!SET\b)\w+)?\s+SET\b/gi;
  for (const match of text.matchAll(update)) {
    const rest = text.slice((match.index ?? 0) + match[0].length);
    // The SET list ends at the statement's FROM, WHERE or RETURNING, or where its string ends.
    const end = rest.search(/\b(?:FROM|WHERE|RETURNING)\b|[`;]/i);
    const set = ` ,${end === -1 ? rest : rest.slice(0, end)}`;
    if (/[\s,](?:\w+\.)?"?status"?\s*=/i.test(set.replace(/\bCASE\b[\s\S]*?\bEND\b/gi, ''))) {
      found.push(match[0] + rest.slice(0, 80));
    }
  }
  for (const match of text.matchAll(/INSERT\s+INTO\s+(?:public\.)?"?transactions"?\s*\(([^)]*)\)/gi)) {
    if (/(?:^|[\s,])"?status"?(?:[\s,]|$)/i.test(match[1] ?? '')) found.push(match[0]);
  }
  for (const match of text.matchAll(/\bNEW\.status\s*:=/gi)) found.push(match[0]);
  return found;
}

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...filesUnder(file, ext));
    else if (entry.name.endsWith(ext)) out.push(file);
  }
  return out;
}

describe('the transaction state machine', () => {
  it('no source file but lifecycle.ts, and no migration, sets a transaction’s status', () => {
    const sources = filesUnder('apps/api/src', '.ts');
    assert.ok(sources.length > 100 && sources.includes(LIFECYCLE), `${sources.length} source files`);
    const problems = [...sources.filter((f) => f !== LIFECYCLE), ...filesUnder('apps/api/migrations', '.sql')].flatMap(
      (file) => statusWrites(readFileSync(path.join(REPO_ROOT, file), 'utf8')).map((s) => `${file}: ${s}`),
    );
    assert.deepEqual(problems, []);
    // The module's own statements are found by the same look (so the look finds what it is meant to).
    assert.ok(statusWrites(readFileSync(path.join(REPO_ROOT, LIFECYCLE), 'utf8')).length >= 10);
  });

  it('the look catches each way of setting the status, and only those', () => {
    const caught = [
      "db.query(`UPDATE transactions SET status = 'created', nonce = NULL WHERE id = $1`)",
      'UPDATE transactions t SET gas_used = v.gas, t.status = v.status FROM unnest($1) AS v(id) WHERE t.id = v.id',
      "'UPDATE transactions SET error_message = $2, status = $3 WHERE id = $1'",
      'UPDATE public.transactions AS t SET "status" = $1',
      "UPDATE transactions SET\n  status = CASE WHEN x THEN 'broadcasted' ELSE status END",
      'INSERT INTO transactions (project_id, status, data) VALUES ($1, $2, $3)',
      "NEW.status := 'created';",
    ];
    for (const sample of caught) assert.equal(statusWrites(sample).length, 1, sample);
    const left = [
      "'UPDATE transactions SET broadcasted_at = clock_timestamp() WHERE id = ANY($1::uuid[]) AND status = $2'",
      'UPDATE transactions SET custody_status = $2, custody_sub_status = $3 WHERE id = $1',
      "UPDATE transactions SET error_message = CASE WHEN status = 'created' THEN $2 END WHERE id = $1",
      "UPDATE transaction_senders SET status = 'x'",
      "UPDATE webhook_deliveries SET status = 'failed' WHERE message_id IN (SELECT id FROM transactions)",
      'INSERT INTO transactions (project_id, data, request_hash) VALUES ($1, $2, $3)',
      "SELECT 1 FROM transactions WHERE status = 'created'",
      "IF NEW.status = 'broadcasted' AND OLD.status IN ('succeeded', 'reverted') THEN",
    ];
    for (const sample of left) assert.deepEqual(statusWrites(sample), [], sample);
  });

  it('the table: each cause has one target status; statuses and events are the schema’s', () => {
    const causes = new Set(TRANSITIONS.map((t) => t.cause));
    for (const cause of causes) assert.doesNotThrow(() => transitionOf(cause), cause);
    for (const t of TRANSITIONS) {
      assert.ok(TRANSACTION_STATUSES.includes(t.to), t.to);
      if (t.from) assert.ok(TRANSACTION_STATUSES.includes(t.from), t.from);
      if (t.emits) assert.ok((TRANSACTION_EVENT_TYPES as readonly string[]).includes(t.emits), t.emits);
    }
    const pairs = TRANSITIONS.map((t) => `${t.from} ${t.to} ${t.cause}`);
    assert.equal(new Set(pairs).size, pairs.length, 'no transition twice');
    assert.deepEqual(
      TRANSITIONS.filter((t) => t.from === null).map((t) => [t.to, t.emits]),
      [['created', null]],
      'a row is born created, and its birth is no event',
    );
    // The docs' diagram: an arrow for each (from, to) of the table, no other.
    const arrows = lifecycleEdges().map((e) => `${e.from}→${e.to}`);
    const moves = [...new Set(TRANSITIONS.map((t) => `${t.from ?? 'start'}→${t.to}`))];
    assert.deepEqual(arrows, moves);
    const page = readFileSync(
      path.join(REPO_ROOT, 'apps/docs/docs/services/mountain-transactions/transaction-lifecycle.md'),
      'utf8',
    );
    assert.match(page, /^import (\w+) from '\.\.\/\.\.\/_generated\/_transaction-lifecycle\.mdx';$/m);
    assert.match(page, /^<TransactionLifecycle \/>$/m, 'the lifecycle page shows the generated diagram');
  });

  describe('on a database', () => {
    let anvil: AnvilHandle;
    let h: Harness;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    /** One row per status, all of one wallet. */
    let rows: { id: string; status: TransactionStatus }[];
    let target: WalletNetwork;

    before(async () => {
      anvil = await startAnvil({ port: await freePort() });
      h = await createHarness({ rpcUrls: { 1337: anvil.url } });
      receiver = await startReceiver();
      const counter = await deployCounter(anvil.url);
      const p = await counterProject(h, counter, ['increment']);
      const endpoint = await h.call('create-webhook-endpoint', {
        headers: p.headers,
        body: { url: receiver.url, eventTypes: [...TRANSACTION_EVENT_TYPES] },
      });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      const executed = await h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: 'lifecycle-0' },
      });
      assert.equal(executed.status, 201, JSON.stringify(executed.body));
      const born = executed.body.transaction.id as string;
      const { rows: template } = await h.db.query<{ status: string; walletId: number; networkId: number }>(
        'SELECT status, system_wallet_id AS "walletId", network_id AS "networkId" FROM transactions WHERE id = $1',
        [born],
      );
      assert.equal(template[0]?.status, 'created', 'a row is born created');
      assert.equal(await messageCount(h.db), 0, 'its birth writes no message');
      target = { walletId: template[0]?.walletId as number, networkId: template[0]?.networkId as number };
      rows = [];
      for (const status of TRANSACTION_STATUSES) {
        const { rows: copy } = await h.db.query<{ id: string }>(
          `INSERT INTO transactions (project_id, contract_activated_function_id, system_wallet_id, network_id,
             function_args, to_address, data, idempotency_key, request_hash)
           SELECT project_id, contract_activated_function_id, system_wallet_id, network_id, function_args,
                  to_address, data, $2, request_hash FROM transactions WHERE id = $1
           RETURNING id`,
          [born, `lifecycle-${status}`],
        );
        rows.push({ id: copy[0]?.id as string, status });
      }
      await h.db.query('DELETE FROM transactions WHERE id = $1', [born]);
    });
    after(async () => {
      await h?.close();
      await anvil?.stop();
      await receiver?.close();
    });

    const messageCount = async (db: Db) =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_messages')).rows[0]?.n ?? 0;

    /** Every row back in its own status, as a row in it would be (no nonce, no custodian id), and no message. */
    async function reset() {
      await h.db.query(
        `UPDATE transactions t SET status = v.status, nonce = NULL, custody_provider = 'fireblocks', custody_id = NULL,
           transaction_hash = NULL, block_number = NULL, block_hash = NULL, finalized_at = NULL, error_message = NULL,
           cancel_requested_at = NULL, cancel_reason = NULL, cancel_hashes = '{}', expires_at = NULL
           FROM unnest($1::uuid[], $2::text[]) AS v(id, status) WHERE t.id = v.id`,
        [rows.map((r) => r.id), rows.map((r) => r.status)],
      );
      await h.db.query('DELETE FROM webhook_messages');
    }

    const receipt = {
      transactionHash: `0x${'ab'.repeat(32)}` as const,
      gasUsed: '21000',
      gasPrice: '1000000000',
      blockNumber: '7',
      blockHash: `0x${'cd'.repeat(32)}` as const,
    };
    const fees = { maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000' };
    const view = (id: string, hash: `0x${string}` | null, failed: boolean) => ({
      id: `custody-${id}`,
      status: failed ? 'FAILED' : 'BROADCASTING',
      subStatus: null,
      hash,
      failed,
      description: 'FAILED',
      updatedMs: null,
    });
    const each = async (fn: (id: string) => Promise<unknown>) => {
      for (const row of rows) await fn(row.id);
    };

    /** Each cause's statement, run for every row at once (or for each row, for a statement of one row). */
    const MOVES: Record<Exclude<Cause, 'accepted'>, () => Promise<unknown>> = {
      'nonce-allocated': () =>
        markNonceAllocated(
          h.db.pool,
          rows.map((r, i) => ({ id: r.id, nonce: 100 + i, gas: '50000' })),
          fees,
          't.id',
        ),
      'custodian-claimed': () =>
        markCustodianClaimed(
          h.db,
          rows.map((r) => ({ id: r.id, gas: '50000' })),
          fees,
          't.id',
        ),
      'estimate-reverted': () => each((id) => markEstimateReverted(h.db, id, 'reverted')),
      'estimate-failed': () => each((id) => markEstimateFailed(h.db, id, 'no estimate')),
      'funds-timeout': () => each((id) => markFundsTimedOut(h.db, id, 'no funds')),
      'predecessor-failed': async () => {
        // Every row waits for the one that is `reverted`.
        const failed = rows.find((r) => r.status === 'reverted');
        await h.db.query('UPDATE transactions SET after_transaction_id = $2 WHERE id = ANY($1::uuid[])', [
          rows.map((r) => r.id),
          failed?.id,
        ]);
        return failAfterPredecessors(h.db, target);
      },
      'rpc-unreachable': () => failWaitingOfWallet(h.db.pool, target, 'rpc-unreachable', 'unreachable'),
      'no-sender': () => failWaitingOfWallet(h.db.pool, target, 'no-sender', 'no signer'),
      'send-later': () =>
        markSendLater(
          h.db.pool,
          rows.map((r) => r.id),
        ),
      sent: () =>
        markSent(
          h.db.pool,
          rows.map((r, i) => ({ id: r.id, hash: `0x${i.toString(16).padStart(64, '0')}`, raw: '0x02' })),
        ),
      'node-refused': () =>
        markNodeRefused(
          h.db.pool,
          rows.map((r) => ({ id: r.id, message: 'refused' })),
        ),
      'custodian-broadcast': () =>
        each((id) => recordCustodianView(h.db, id, 'fireblocks', view(id, `0x${'ef'.repeat(32)}`, false))),
      'custodian-refused': () => each((id) => markCustodianRefused(h.db, id, 'refused')),
      'custodian-failed': () => each((id) => recordCustodianView(h.db, id, 'fireblocks', view(id, null, true))),
      'custodian-cancelled': async () => {
        await askCancel();
        return each((id) => recordCustodianView(h.db, id, 'fireblocks', view(id, null, true)));
      },
      mined: () =>
        markMined(
          h.db,
          rows.map((r) => ({ id: r.id, receipt })),
        ),
      'mined-reverted': () => each((id) => markMinedReverted(h.db, id, receipt, 'Reverted on chain')),
      'receipt-timeout': () => each((id) => markMonitorFailed(h.db, id, 'receipt-timeout', 'no receipt')),
      'custodian-failed-off-chain': () =>
        each((id) => markMonitorFailed(h.db, id, 'custodian-failed-off-chain', 'not on chain')),
      'no-monitor': () => failBroadcastOfWallet(h.db, target, 'no RPC endpoint'),
      reorg: () =>
        markReorged(
          h.db,
          rows.map((r) => ({ id: r.id, signedFeeCap: null })),
        ),
      // Cancels move only rows whose cancel is asked for (here: every row) or whose deadline passed.
      'cancel-unsent': async () => {
        await askCancel();
        return cancelUnsent(h.db, target);
      },
      'cancel-sent': async () => {
        await h.db.query(`UPDATE transactions SET expires_at = clock_timestamp() - interval '1 second'`);
        return markCancelling(h.db, target);
      },
      'cancel-mined': () =>
        markCancelMined(
          h.db,
          rows.map((r) => ({ id: r.id, receipt })),
        ),
      'cancel-blocked': () =>
        markCancelBlocked(
          h.db,
          rows.map((r) => r.id),
          'no room under the cap',
        ),
      'reorg-cancelling': async () => {
        await askCancel();
        return markReorged(
          h.db,
          rows.map((r) => ({ id: r.id, signedFeeCap: null })),
        );
      },
    };
    const askCancel = () =>
      h.db.query(`UPDATE transactions SET cancel_requested_at = clock_timestamp(), cancel_reason = 'asked'`);

    it('every cause of the table has its statement here', () => {
      assert.deepEqual(
        Object.keys(MOVES).sort(),
        [...new Set(TRANSITIONS.filter((t) => t.from !== null).map((t) => t.cause))].sort(),
      );
    });

    for (const cause of [...new Set(TRANSITIONS.filter((t) => t.from !== null).map((t) => t.cause))]) {
      it(`${cause}: moves only the rows in an allowed status, and the outbox writes the table's event`, async () => {
        await reset();
        await MOVES[cause as Exclude<Cause, 'accepted'>]();
        const { rows: found } = await h.db.query<{ id: string; status: string }>(
          'SELECT id, status FROM transactions WHERE id = ANY($1::uuid[])',
          [rows.map((r) => r.id)],
        );
        const { rows: messages } = await h.db.query<{ id: string; type: string; previous: string; status: string }>(
          `SELECT transaction_id AS id, event_type AS type, previous_status AS previous, snapshot->>'status' AS status
             FROM webhook_messages`,
        );
        const moved: string[] = [];
        for (const row of rows) {
          const transition = TRANSITIONS.find((t) => t.cause === cause && t.from === row.status);
          const now = found.find((a) => a.id === row.id)?.status;
          assert.equal(now, transition ? transition.to : row.status, `${cause} from ${row.status}`);
          if (transition) moved.push(row.status);
          const written = messages.filter((m) => m.id === row.id);
          assert.deepEqual(
            written.map((m) => [m.type, m.previous, m.status]),
            transition?.emits ? [[transition.emits, row.status, transition.to]] : [],
            `${cause} from ${row.status}: the message written`,
          );
        }
        assert.deepEqual(moved, transitionOf(cause).from, `${cause}: every allowed status moved`);
      });
    }

    it('finality (no status change) writes transaction.finalized, for mined rows only', async () => {
      await reset();
      await h.db.query(
        `UPDATE transactions SET block_number = 7, block_hash = $2, nonce = CASE status WHEN 'succeeded' THEN 1 ELSE 0 END
          WHERE id = ANY($1)`,
        [
          rows.filter((r) => r.status === 'succeeded' || r.status === 'broadcasted').map((r) => r.id),
          receipt.blockHash,
        ],
      );
      await h.db.query('DELETE FROM webhook_messages');
      assert.equal(await markFinal(h.db, target, [{ blockNumber: 7, blockHash: receipt.blockHash }], 2), 1);
      const { rows: messages } = await h.db.query<{ id: string; type: string }>(
        'SELECT transaction_id AS id, event_type AS type FROM webhook_messages',
      );
      assert.deepEqual(messages, [
        { id: rows.find((r) => r.status === 'succeeded')?.id, type: 'transaction.finalized' },
      ]);
    });
  });
});
