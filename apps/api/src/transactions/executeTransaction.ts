import { createHash } from 'node:crypto';
import type { Abi, Address, Hex, PublicClient } from 'viem';
import { describeRevert, isRateLimited, isRevert, isUnreachable, shortError } from '#api/chain/chainErrors.ts';
import { type Chains, NetworkNotConfiguredError } from '#api/chain/chains.ts';
import { type NetworkId, networkTypeOf } from '#api/config/networks.ts';
import { type CallableItem, refuseValueOnNonPayable } from '#api/contracts/abi.ts';
import { activatedFunctionItem, contractAbiForErrors } from '#api/contracts/contracts.ts';
import { encodeFunctionArgs } from '#api/contracts/functionArgs.ts';
import type { Db } from '#api/db/db.ts';
import { ApiError, validationError } from '#api/errors/ApiError.ts';
import { WalletProviderNotConfiguredError } from '#api/wallets/custodian.ts';
import type { RemoteCustodians, WalletType } from '#api/wallets/custodians.ts';
import { CustodyNotConfiguredError } from '#api/wallets/custody.ts';
import { submitterOf } from '#api/wallets/signer.ts';
import { wakeSender } from './jobs.ts';
import { ensureSender, walletChain } from './senders.ts';
import { checkTransactionLimit, withinDayLimit } from './spendingLimits.ts';
import { type SqlRunner, TRANSACTION_COLUMNS, type Transaction } from './transactions.ts';
import { chooseWallet } from './walletChoice.ts';

export interface ExecuteRequest {
  contractActivatedFunctionId: number;
  functionArgs: string[];
  idempotencyKey: string;
  /** Wei, as a decimal string; absent: none. */
  value?: string;
  /** A transaction of the same project and network that must succeed first. */
  afterTransactionId?: string;
  /** A deadline, in seconds from acceptance: not mined by then, it is cancelled. */
  timeoutSeconds?: number;
  /** A wallet of the project's pool to send from; absent: the pool's choice (walletChoice.ts). */
  mSystemWalletId?: number;
  /** Rows with the same key go through one wallet, in acceptance order. */
  orderingKey?: string;
}

/** The bounds of execute-transaction's timeoutSeconds: half a minute to a week. */
export const MIN_TIMEOUT_SECONDS = 30;
export const MAX_TIMEOUT_SECONDS = 604_800;

interface ActivatedFunctionRow {
  id: number;
  active: boolean;
  formattedAbiFunction: string;
  signature: string;
  abiFunction: CallableItem | null;
  maxValuePerTransaction: string;
  maxValuePerDay: string;
  contractId: number;
  networkId: NetworkId;
  contractAddress: Address;
  walletMainnetId: number;
  walletMainnetAddress: Address;
  walletMainnetType: WalletType;
  walletTestnetId: number;
  walletTestnetAddress: Address;
  walletTestnetType: WalletType;
  poolMainnet: number;
  poolTestnet: number;
}

/** What executing needs beside the database and the chains: the custodians, for wallets kept by one. */
export interface ExecuteDeps {
  db: Db;
  chains: Chains;
  custodians?: RemoteCustodians;
}

/**
 * What identifies a request for idempotency: everything in the body but the key itself. A request without value
 * hashes as requests did before value existed, so that their retries still find them.
 */
function requestHash(body: ExecuteRequest): string {
  const fields: unknown[] = [body.contractActivatedFunctionId, body.functionArgs];
  if ((body.value !== undefined && body.value !== '0') || body.afterTransactionId !== undefined) {
    fields.push(body.value ?? '0');
  }
  if (body.afterTransactionId !== undefined) fields.push(body.afterTransactionId);
  if (body.timeoutSeconds !== undefined) fields.push({ timeoutSeconds: body.timeoutSeconds });
  if (body.mSystemWalletId !== undefined) fields.push({ mSystemWalletId: body.mSystemWalletId });
  if (body.orderingKey !== undefined) fields.push({ orderingKey: body.orderingKey });
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

async function findByKey(db: SqlRunner, projectId: number, key: string) {
  const { rows } = await db.query<Transaction & { requestHash: string }>(
    `SELECT ${TRANSACTION_COLUMNS}, request_hash AS "requestHash" FROM transactions
     WHERE project_id = $1 AND idempotency_key = $2`,
    [projectId, key],
  );
  return rows[0];
}

/** The same key with the same body is the original transaction; with another body, a 409. */
function original(existing: Transaction & { requestHash: string }, hash: string): Transaction {
  if (existing.requestHash !== hash) {
    throw new ApiError('CONFLICT', {
      reason: `Idempotency key "${existing.idempotencyKey}" was already used for a different request (transaction ${existing.id}); use a new key for a new transaction`,
    });
  }
  const { requestHash: _, ...transaction } = existing;
  return transaction;
}

/**
 * The activated function with its contract and the project's wallets, in one round trip. The idempotency key is not
 * looked up here: on the way to a new transaction the insert's unique index finds a duplicate, and a request that is
 * refused looks its key up then (see executeTransaction).
 */
async function lookupFunction(db: Db, projectId: number, functionId: number) {
  const { rows } = await db.query<ActivatedFunctionRow>(
    `SELECT f.id, f.active, f.formatted_abi_function AS "formattedAbiFunction", f.signature,
            f.abi_function AS "abiFunction", f.max_value_per_transaction::text AS "maxValuePerTransaction",
            f.max_value_per_day::text AS "maxValuePerDay",
            c.id AS "contractId", c.network_id AS "networkId", c.address AS "contractAddress",
            wm.id AS "walletMainnetId", wm.address AS "walletMainnetAddress", wm.type AS "walletMainnetType",
            wt.id AS "walletTestnetId", wt.address AS "walletTestnetAddress", wt.type AS "walletTestnetType",
            (SELECT count(*)::int FROM system_wallets pw WHERE pw.project_id = p.id AND pw.network_type = 'mainnet')
              AS "poolMainnet",
            (SELECT count(*)::int FROM system_wallets pw WHERE pw.project_id = p.id AND pw.network_type = 'testnet')
              AS "poolTestnet"
       FROM contract_activated_functions f
       JOIN contracts c ON c.id = f.contract_id
       JOIN projects p ON p.id = c.project_id
       JOIN system_wallets wm ON wm.id = p.wallet_mainnet_id
       JOIN system_wallets wt ON wt.id = p.wallet_testnet_id
      WHERE f.id = $1 AND c.project_id = $2`,
    [functionId, projectId],
    'execute-lookup-function',
  );
  return rows[0];
}

/**
 * The custodian that will submit the row (its name, shown in `custody`), or null for a wallet the platform signs
 * for. A wallet whose custodian this deployment cannot use on the network is refused now, naming the variable,
 * rather than accepted and failed later.
 */
function custodianFor(deps: ExecuteDeps, type: WalletType, networkId: NetworkId): string | null {
  try {
    const submitter = submitterOf(type, deps.custodians ?? {});
    submitter?.checkNetwork(networkId);
    return submitter?.provider ?? null;
  } catch (error) {
    if (error instanceof WalletProviderNotConfiguredError || error instanceof CustodyNotConfiguredError) {
      throw new ApiError('CUSTODY_NOT_CONFIGURED', { reason: error.message });
    }
    throw error;
  }
}

function clientFor(chains: Chains, networkId: NetworkId): PublicClient {
  try {
    return chains.client(networkId);
  } catch (error) {
    if (error instanceof NetworkNotConfiguredError) throw new ApiError('NETWORK_NOT_CONFIGURED', { networkId });
    throw error;
  }
}

/**
 * The transaction a step waits for: one of the project (another project's is a 404, as if it did not exist), on the
 * network of the function being executed.
 */
async function predecessor(
  db: Db,
  projectId: number,
  id: string,
  networkId: NetworkId,
): Promise<{ id: string; status: string; walletId: number }> {
  const { rows } = await db.query<{ id: string; status: string; networkId: number; walletId: number }>(
    `SELECT id, status, network_id AS "networkId", system_wallet_id AS "walletId" FROM transactions
      WHERE project_id = $1 AND id = $2`,
    [projectId, id],
  );
  const found = rows[0];
  if (!found) throw new ApiError('NOT_FOUND', { resource: 'Transaction', id });
  if (found.networkId !== networkId) {
    throw validationError([
      {
        field: 'body.afterTransactionId',
        message: `is a transaction of network ${found.networkId}; a step waits only for one of its own network (${networkId})`,
      },
    ]);
  }
  return found;
}

/**
 * The wallet can pay the value (the development chain's wallets are topped up first, as before a send): a
 * transaction it cannot pay is refused now rather than failed at its estimate.
 */
async function checkFunds(
  deps: ExecuteDeps,
  target: { walletId: number; networkId: NetworkId },
  address: Address,
  value: bigint,
): Promise<void> {
  const { client, devChain } = walletChain(deps.chains, target);
  const { networkId } = target;
  let balance: bigint;
  try {
    await devChain.ensureFunds(address);
    balance = await client.getBalance({ address });
  } catch (error) {
    throw new ApiError('CHAIN_UNAVAILABLE', { networkId, reason: shortError(error) }, { cause: error });
  }
  if (balance < value) {
    throw new ApiError('INSUFFICIENT_FUNDS', {
      address,
      balance: balance.toString(),
      networkId,
      value: value.toString(),
    });
  }
}

/**
 * eth_call from the system wallet: a revert is the caller's 422 with the reason decoded with the contract's ABI
 * (read only then), and nothing is created.
 */
async function simulate(
  client: PublicClient,
  call: { networkId: NetworkId; from: Address; to: Address; data: Hex; value: bigint; abi: () => Promise<Abi> },
): Promise<void> {
  try {
    await client.call({
      account: call.from,
      to: call.to,
      data: call.data,
      ...(call.value > 0n ? { value: call.value } : {}),
    });
  } catch (error) {
    if (isRevert(error)) throw new ApiError('EXECUTION_REVERTED', { reason: describeRevert(error, await call.abi()) });
    const reason = isRateLimited(error)
      ? 'the endpoint is rate limiting the platform'
      : isUnreachable(error)
        ? 'the endpoint is unreachable'
        : shortError(error);
    throw new ApiError('CHAIN_UNAVAILABLE', { networkId: call.networkId, reason }, { cause: error });
  }
}

/**
 * Accepts a transaction: checks the function is active, converts the arguments, simulates the call, then stores
 * the transaction and wakes its sender. Concurrent requests with one idempotency key meet at the unique index: one
 * inserts, the others get its row. A request refused on the way (function inactive, arguments, simulation) whose
 * key is already stored gets the original transaction instead (or the 409 of a different body), as if the key had
 * been looked up first; looking it up only then keeps the common path to one read before the simulation.
 */
export async function executeTransaction(
  deps: ExecuteDeps,
  projectId: number,
  body: ExecuteRequest,
): Promise<Transaction> {
  const hash = requestHash(body);
  try {
    return await accept(deps, projectId, body, hash);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code === 'CONFLICT') throw error;
    const existing = await findByKey(deps.db, projectId, body.idempotencyKey);
    if (existing) return original(existing, hash);
    throw error;
  }
}

async function accept(deps: ExecuteDeps, projectId: number, body: ExecuteRequest, hash: string): Promise<Transaction> {
  const fn = await lookupFunction(deps.db, projectId, body.contractActivatedFunctionId);
  if (!fn)
    throw new ApiError('NOT_FOUND', { resource: 'Contract activated function', id: body.contractActivatedFunctionId });
  if (!fn.active) throw new ApiError('FUNCTION_NOT_ACTIVE', { signature: fn.signature, contractId: fn.contractId });
  const item = await activatedFunctionItem(deps.db, fn);
  const value = BigInt(body.value ?? '0');
  if (value > 0n) {
    refuseValueOnNonPayable({ signature: fn.signature, item }, 'value');
    await checkTransactionLimit(deps.db, fn, value, {
      maxValuePerTransaction: BigInt(fn.maxValuePerTransaction),
      maxValuePerDay: BigInt(fn.maxValuePerDay),
    });
  }
  const { data } = encodeFunctionArgs(item, body.functionArgs);
  const networkType = networkTypeOf(fn.networkId);
  const mainnet = networkType === 'mainnet';
  const primary = mainnet
    ? { id: fn.walletMainnetId, address: fn.walletMainnetAddress, type: fn.walletMainnetType }
    : { id: fn.walletTestnetId, address: fn.walletTestnetAddress, type: fn.walletTestnetType };
  const custodyProvider = custodianFor(deps, primary.type, fn.networkId);
  const client = clientFor(deps.chains, fn.networkId);
  const after = body.afterTransactionId
    ? await predecessor(deps.db, projectId, body.afterTransactionId, fn.networkId)
    : undefined;
  const wallet = await chooseWallet(deps.db, {
    projectId,
    networkId: fn.networkId,
    networkType,
    primary,
    poolSize: mainnet ? fn.poolMainnet : fn.poolTestnet,
    ...(body.mSystemWalletId !== undefined ? { pinned: body.mSystemWalletId } : {}),
    ...(body.orderingKey !== undefined ? { orderingKey: body.orderingKey } : {}),
    ...(after ? { predecessorWallet: after.walletId } : {}),
  });
  if (value > 0n) await checkFunds(deps, { walletId: wallet.id, networkId: fn.networkId }, wallet.address, value);
  // A step that waits for another is simulated only when that one has succeeded: before, the chain does not yet
  // hold what it builds on (an approval, a deposit). It is estimated before it is sent either way.
  if (!after || after.status === 'succeeded')
    await simulate(client, {
      networkId: fn.networkId,
      from: wallet.address,
      to: fn.contractAddress,
      data,
      value,
      abi: () => contractAbiForErrors(deps.db, fn.contractId),
    });

  // The row in one statement, then its sender's wake-up in another (see wakeSender for why not together). A process
  // dying between the two leaves the row for the sweep, which wakes senders of untouched rows.
  const target = { walletId: wallet.id, networkId: fn.networkId };
  await ensureSender(deps.db, target);
  const insert = (db: SqlRunner, name?: string) =>
    db.query<Transaction>(
      `INSERT INTO transactions (project_id, contract_activated_function_id, system_wallet_id, network_id,
         function_args, to_address, data, idempotency_key, request_hash, custody_provider, value,
         after_transaction_id, error_message, expires_at, ordering_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
               clock_timestamp() + $14::int * interval '1 second', $15)
       ON CONFLICT (project_id, idempotency_key) DO NOTHING
       RETURNING ${TRANSACTION_COLUMNS}`,
      [
        projectId,
        fn.id,
        wallet.id,
        fn.networkId,
        JSON.stringify(body.functionArgs),
        fn.contractAddress,
        data,
        body.idempotencyKey,
        hash,
        custodyProvider,
        value.toString(),
        after?.id ?? null,
        after && after.status !== 'succeeded' ? `Waiting for transaction ${after.id} to succeed` : null,
        body.timeoutSeconds ?? null,
        body.orderingKey ?? null,
      ],
      name,
    );
  // A transaction that sends value waits for the others of its function, so that the day's limit holds.
  const { rows } =
    value > 0n ? await withinDayLimit(deps.db, fn.id, value, insert) : await insert(deps.db, 'execute-insert');
  if (rows[0]) await wakeSender(deps.db, target);
  const inserted = rows[0];
  if (inserted) return inserted;
  // Another request with this key committed first.
  const winner = await findByKey(deps.db, projectId, body.idempotencyKey);
  if (!winner) throw new Error('Idempotency key conflict without a stored transaction');
  return original(winner, hash);
}
