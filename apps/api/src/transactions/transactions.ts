import type { Static } from 'typebox';
import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import type { Transaction as TransactionSchema, TransactionStatusValue } from '#api/schemas/entities.ts';
import { pageMeta } from '#api/schemas/requests.ts';

/** The pool or a transaction's client. */
export type SqlRunner = Pick<Db, 'query'>;

/** A transaction as the API answers it. */
export type Transaction = Static<typeof TransactionSchema>;

/** The coarse `failed` of SPEC §4: every state a transaction cannot leave without having succeeded. */
export const FAILED_STATUSES: TransactionStatusValue[] = ['broadcast-failed', 'monitor-failed', 'reverted'];

export const TRANSACTION_COLUMNS = `id, project_id AS "projectId",
  contract_activated_function_id AS "contractActivatedFunctionId", system_wallet_id AS "mSystemWalletId",
  network_id AS "networkId", function_args AS "functionArgs", coalesce(value, 0)::text AS value, status, transaction_hash AS "transactionHash",
  nonce, gas_price::text AS "gasPrice", gas_limit::text AS "gasLimit", gas_used::text AS "gasUsed",
  block_number AS "blockNumber",
  CASE WHEN block_number IS NOT NULL THEN greatest(0, coalesce(
    (SELECT h.head FROM network_heads h WHERE h.network_id = transactions.network_id), block_number) - block_number)
  END::int AS confirmations,
  finalized_at IS NOT NULL AS finalized,
  error_message AS "errorMessage", idempotency_key AS "idempotencyKey",
  after_transaction_id AS "afterTransactionId",
  to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt", ordering_key AS "orderingKey",
  CASE WHEN custody_provider IS NOT NULL THEN json_build_object('provider', custody_provider, 'id', custody_id,
    'status', custody_status, 'subStatus', custody_sub_status) END AS custody,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"`;

export async function findTransaction(db: SqlRunner, projectId: number, id: string): Promise<Transaction | undefined> {
  const { rows } = await db.query(`SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE project_id = $1 AND id = $2`, [
    projectId,
    id,
  ]);
  return rows[0] as Transaction | undefined;
}

/** A transaction of the project; another project's id is a 404, as if it did not exist. */
export async function getTransaction(db: Db, projectId: number, id: string): Promise<Transaction> {
  const transaction = await findTransaction(db, projectId, id);
  if (!transaction) throw new ApiError('NOT_FOUND', { resource: 'Transaction', id });
  return transaction;
}

/** The most reorgs a transaction's answer lists: its newest ones. */
export const REORGS_LISTED = 50;

export interface TransactionReorg {
  blockNumber: number;
  blockHash: string | null;
  transactionHash: string | null;
  reorgedAt: string;
}

/** The blocks that held a transaction and then left the canonical chain, oldest first (the newest REORGS_LISTED). */
export async function transactionReorgs(db: SqlRunner, id: string): Promise<TransactionReorg[]> {
  const { rows } = await db.query<TransactionReorg>(
    `SELECT * FROM (
       SELECT id, block_number::int AS "blockNumber", block_hash AS "blockHash", transaction_hash AS "transactionHash",
              to_char(reorged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "reorgedAt"
         FROM transaction_reorgs WHERE transaction_id = $1 ORDER BY id DESC LIMIT ${REORGS_LISTED}) newest
      ORDER BY id`,
    [id],
  );
  return rows.map(({ blockNumber, blockHash, transactionHash, reorgedAt }) => ({
    blockNumber,
    blockHash,
    transactionHash,
    reorgedAt,
  }));
}

/** One page of the project's transactions, newest first by createdAt; `failed` matches the three failure states. */
export async function listTransactions(
  db: Db,
  projectId: number,
  query: { page: number; perPage: number; status?: TransactionStatusValue | 'failed' },
) {
  const statuses = query.status === 'failed' ? FAILED_STATUSES : query.status ? [query.status] : null;
  const where = `project_id = $1${statuses ? ' AND status = ANY($2::text[])' : ''}`;
  const params: unknown[] = statuses ? [projectId, statuses] : [projectId];
  const [page, count] = await Promise.all([
    db.query<Transaction>(
      `SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE ${where}
       ORDER BY created_at DESC, id DESC LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`,
      params,
    ),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM transactions WHERE ${where}`, params),
  ]);
  const total = count.rows[0]?.total ?? 0;
  return { data: { transactions: page.rows }, meta: pageMeta(query.page, query.perPage, total) };
}
