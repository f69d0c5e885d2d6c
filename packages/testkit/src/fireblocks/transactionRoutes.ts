import { type Hex, isAddress, isHex, parseGwei, parseUnits } from 'viem';
import { NATIVE_DECIMALS } from './assetChains.ts';
import { ApiErrors } from './fireblocksErrors.ts';
import { dropTransaction, findReplaced, notReplaceable, parseDrop } from './replacements.ts';
import { pageLimit, type RouteDefinition, type SimulatorContext } from './simulatorRoutes.ts';
import type { TransactionRecord } from './simulatorState.ts';
import type { NewTransaction } from './transactionEngine.ts';
import { transactionView } from './transactionView.ts';

const MAX_EXTERNAL_TX_ID = 255;
const MAX_NOTE = 4_096;
const FEE_LEVELS = new Set(['LOW', 'MEDIUM', 'HIGH']);
const OPERATIONS = new Set(['TRANSFER', 'CONTRACT_CALL']);
/** Whole units an amount may have: more than any chain's supply, few enough to refuse a runaway string. */
const MAX_AMOUNT_DIGITS = 30;

function view(ctx: SimulatorContext, tx: TransactionRecord) {
  const name = ctx.state.vaults.find((v) => v.id === tx.vaultId)?.name ?? '';
  return transactionView(tx, name, ctx.engine.keys.account(tx.vaultId).address);
}

/** Gwei as the request gives it (a number, or a numeric string with up to 9 decimals), in wei. */
function gwei(value: unknown, field: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,12}(\.\d{1,9})?$/.test(text)) {
    throw ApiErrors.badTransaction(`${field} must be a non-negative amount of gwei, such as "1.5"`);
  }
  return parseGwei(text);
}

/**
 * An amount in the asset's units (TransactionRequest.amount: "For EVM-based blockchains only, the amount is the value
 * in the asset's units"; a numeric string recommended, the number form deprecated), in wei. A string must be plain
 * decimal digits with at most 18 decimals ("1", "0.015"); a number must print as one (1e-7 does not: give a string).
 */
function amountWei(value: unknown, assetId: string): bigint {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  const pattern = new RegExp(`^\\d{1,${MAX_AMOUNT_DIGITS}}(\\.\\d{1,${NATIVE_DECIMALS}})?$`);
  if (typeof text !== 'string' || !pattern.test(text)) {
    throw ApiErrors.badTransaction(
      `amount must be a non-negative decimal string in ${assetId} units, with at most ${NATIVE_DECIMALS} decimals, such as "0.015"`,
    );
  }
  return parseUnits(text, NATIVE_DECIMALS);
}

/**
 * Validates a create request (TransactionRequest in @fireblocks/ts-sdk) from a VAULT_ACCOUNT to a ONE_TIME_ADDRESS:
 * - `operation: 'TRANSFER'` (the default when absent): a plain transfer of `amount` (required, above 0), no
 *   `extraParameters.contractCallData`; signed with 21000 gas unless `gasLimit` is given;
 * - `operation: 'CONTRACT_CALL'`: `extraParameters.contractCallData` (0x hex) sent with `amount` as its value (0 when
 *   absent), the gas estimated unless `gasLimit` is given.
 * The amount is in the asset's units (see amountWei); fees in gwei ("maxFee (gwei)", "priorityFee (gwei)": Fireblocks'
 * "EVM fees: Ethereum fee parameters"), `gasLimit` in gas units. `treatAsGrossAmount: true` (the fee taken out of the
 * amount) is not simulated and refused.
 */
function parseCreate(ctx: SimulatorContext, body: unknown): NewTransaction {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw ApiErrors.badTransaction('Body must be a JSON object');
  const b = body as Record<string, unknown>;
  const operation = b.operation ?? 'TRANSFER';
  if (typeof operation !== 'string' || !OPERATIONS.has(operation)) {
    throw ApiErrors.badTransaction(
      `operation ${String(operation)} is not simulated: only TRANSFER and CONTRACT_CALL are`,
    );
  }
  if (typeof b.assetId !== 'string' || b.assetId === '') throw ApiErrors.badTransaction('assetId is required');
  if (!ctx.assets[b.assetId]) throw ApiErrors.assetNotFound(b.assetId);
  const source = b.source as { type?: unknown; id?: unknown } | undefined;
  if (source?.type !== 'VAULT_ACCOUNT' || typeof source.id !== 'string') {
    throw ApiErrors.badTransaction('source must be { type: "VAULT_ACCOUNT", id: "<vault account id>" }');
  }
  const account = ctx.state.vaults.find((v) => v.id === source.id);
  if (!account) throw ApiErrors.badTransaction(`Source vault account ${source.id} was not found`);
  if (!account.assets.includes(b.assetId)) {
    throw ApiErrors.badTransaction(`Source vault account ${source.id} has no ${b.assetId} wallet`);
  }
  const destination = b.destination as { type?: unknown; oneTimeAddress?: { address?: unknown } } | undefined;
  if (destination?.type !== 'ONE_TIME_ADDRESS') {
    throw ApiErrors.badTransaction('destination must be { type: "ONE_TIME_ADDRESS", oneTimeAddress: { address } }');
  }
  const address = destination.oneTimeAddress?.address;
  if (typeof address !== 'string' || !isAddress(address, { strict: false })) {
    throw ApiErrors.badTransaction(`Invalid destination address: ${String(address)}`);
  }
  if (operation === 'TRANSFER' && (b.amount === undefined || b.amount === null)) {
    throw ApiErrors.badTransaction('amount is required for a TRANSFER');
  }
  const value = b.amount === undefined || b.amount === null ? 0n : amountWei(b.amount, b.assetId);
  if (operation === 'TRANSFER' && value === 0n) {
    throw ApiErrors.badTransaction('amount must be greater than 0 for a TRANSFER');
  }
  if (b.treatAsGrossAmount !== undefined && b.treatAsGrossAmount !== false) {
    throw ApiErrors.badTransaction('treatAsGrossAmount is not simulated: only false is');
  }
  const extra = b.extraParameters as { contractCallData?: unknown } | undefined;
  let data: Hex = '0x';
  if (operation === 'TRANSFER') {
    if (extra?.contractCallData !== undefined) {
      throw ApiErrors.badTransaction(
        'extraParameters.contractCallData is only allowed with operation CONTRACT_CALL, not TRANSFER',
      );
    }
  } else {
    const given = extra?.contractCallData;
    if (typeof given !== 'string' || !isHex(given) || given.length % 2 !== 0) {
      throw ApiErrors.badTransaction('extraParameters.contractCallData must be 0x-prefixed hex bytes');
    }
    data = given;
  }
  const externalTxId = b.externalTxId;
  if (externalTxId !== undefined && (typeof externalTxId !== 'string' || externalTxId.length > MAX_EXTERNAL_TX_ID)) {
    throw ApiErrors.badTransaction(`externalTxId must be a string of at most ${MAX_EXTERNAL_TX_ID} characters`);
  }
  if (b.note !== undefined && (typeof b.note !== 'string' || b.note.length > MAX_NOTE)) {
    throw ApiErrors.badTransaction(`note must be a string of at most ${MAX_NOTE} characters`);
  }
  let gasLimit: bigint | undefined;
  if (b.gasLimit !== undefined) {
    const text = String(b.gasLimit);
    if (!/^\d{1,9}$/.test(text) || BigInt(text) < 21_000n) {
      throw ApiErrors.badTransaction('gasLimit must be a whole number of gas units, at least 21000');
    }
    gasLimit = BigInt(text);
  }
  if (b.feeLevel !== undefined && !FEE_LEVELS.has(b.feeLevel as string)) {
    throw ApiErrors.badTransaction('feeLevel must be LOW, MEDIUM or HIGH');
  }
  const gasPrice = gwei(b.gasPrice, 'gasPrice');
  const maxFeePerGas = gwei(b.maxFee, 'maxFee') ?? gasPrice;
  const maxPriorityFeePerGas = gwei(b.priorityFee, 'priorityFee') ?? gasPrice;
  if (maxFeePerGas !== undefined && maxPriorityFeePerGas !== undefined && maxPriorityFeePerGas > maxFeePerGas) {
    throw ApiErrors.badTransaction('priorityFee must not exceed maxFee');
  }
  // "The hash of the stuck transaction that needs to be replaced" (guide "Boost Transactions"): see replacements.ts.
  const replaced =
    b.replaceTxByHash === undefined || b.replaceTxByHash === null || b.replaceTxByHash === ''
      ? undefined
      : findReplaced(ctx.state.transactions, account.id, b.assetId, b.replaceTxByHash);
  return {
    operation,
    assetId: b.assetId,
    vaultId: account.id,
    destinationAddress: address as Hex,
    data,
    value,
    note: (b.note as string | undefined) ?? '',
    externalTxId,
    customerRefId: typeof b.customerRefId === 'string' ? b.customerRefId : undefined,
    gasLimit,
    maxFeePerGas,
    maxPriorityFeePerGas,
    feeLevel: b.feeLevel as string | undefined,
    ...(replaced ? { replaces: { original: replaced, kind: 'replaceTxByHash' as const } } : {}),
  };
}

function listFilter(query: URLSearchParams): (tx: TransactionRecord) => boolean {
  const number = (name: string) => {
    const raw = query.get(name);
    if (raw === null) return undefined;
    if (!/^\d+$/.test(raw)) throw ApiErrors.badRequest(`${name} must be a Unix time in milliseconds`);
    return Number(raw);
  };
  const after = number('after');
  const before = number('before');
  const status = query.get('status');
  const sourceType = query.get('sourceType');
  const sourceId = query.get('sourceId');
  const destType = query.get('destType');
  const txHash = query.get('txHash')?.toLowerCase();
  const assets = query.get('assets')?.split(',').filter(Boolean);
  return (tx) =>
    (after === undefined || tx.createdAt > after) &&
    (before === undefined || tx.createdAt < before) &&
    (!status || tx.status === status) &&
    (!sourceType || sourceType === 'VAULT_ACCOUNT') &&
    (!sourceId || tx.vaultId === sourceId) &&
    (!destType || destType === 'ONE_TIME_ADDRESS') &&
    (!txHash || tx.versions.some((v) => v.hash.toLowerCase() === txHash)) &&
    (!assets || assets.includes(tx.assetId));
}

/** Transactions (TransactionsApi in @fireblocks/ts-sdk api/transactions-api.ts). */
export const transactionRoutes: RouteDefinition[] = [
  {
    method: 'POST',
    template: '/transactions',
    handle(ctx, { body, apiKey }) {
      const input = parseCreate(ctx, body);
      if (input.externalTxId !== undefined && ctx.engine.findByExternalTxId(input.externalTxId) !== undefined) {
        throw ApiErrors.duplicateExternalTxId();
      }
      const tx = ctx.engine.create(input, apiKey);
      return { status: 200, body: { id: tx.id, status: tx.status, systemMessages: [] } };
    },
  },
  {
    method: 'GET',
    template: '/transactions',
    handle(ctx, { query }) {
      // `next`/`prev` carry the listing's own query and offset (the SDK: "Cursor returned in next-page header").
      const paged = query.get('next') ?? query.get('prev');
      let offset = 0;
      let q = query;
      if (paged) {
        const decoded = (() => {
          try {
            return JSON.parse(Buffer.from(paged, 'base64url').toString('utf8')) as { offset: number; query: string };
          } catch {
            return undefined;
          }
        })();
        if (!decoded || !Number.isSafeInteger(decoded.offset) || decoded.offset < 0) {
          throw ApiErrors.badRequest('Invalid paging cursor');
        }
        offset = decoded.offset;
        q = new URLSearchParams(decoded.query);
      }
      // "If not provided, a limit of 200 will be used. The maximum allowed limit is 500" (getTransactions).
      const limit = pageLimit(q.get('limit'), 200, 500);
      if (limit === undefined) throw ApiErrors.badRequest('limit must be an integer from 1 to 500');
      const orderBy = q.get('orderBy') ?? 'createdAt';
      if (orderBy !== 'createdAt' && orderBy !== 'lastUpdated') {
        throw ApiErrors.badRequest('orderBy must be createdAt or lastUpdated');
      }
      const sort = q.get('sort') ?? 'DESC';
      if (sort !== 'ASC' && sort !== 'DESC') throw ApiErrors.badRequest('sort must be ASC or DESC');
      const matching = ctx.state.transactions
        .filter(listFilter(q))
        .sort((a, b) => (sort === 'ASC' ? 1 : -1) * (a[orderBy] - b[orderBy]));
      const page = matching.slice(offset, offset + limit);
      const headers: Record<string, string> = {};
      const link = (at: number, name: string) =>
        `${ctx.baseUrl}/transactions?${name}=${Buffer.from(JSON.stringify({ offset: at, query: q.toString() })).toString('base64url')}`;
      if (offset + limit < matching.length) headers['next-page'] = link(offset + limit, 'next');
      if (offset > 0) headers['prev-page'] = link(Math.max(0, offset - limit), 'prev');
      return { status: 200, body: page.map((tx) => view(ctx, tx)), headers };
    },
  },
  {
    method: 'GET',
    template: '/transactions/{txId}',
    handle(ctx, { params }) {
      const tx = ctx.engine.find(params.txId);
      if (!tx) throw ApiErrors.transactionNotFound(params.txId);
      return { status: 200, body: view(ctx, tx) };
    },
  },
  {
    method: 'GET',
    template: '/transactions/external_tx_id/{externalTxId}',
    handle(ctx, { params }) {
      const tx = ctx.engine.findByExternalTxId(params.externalTxId);
      if (!tx) throw ApiErrors.transactionNotFound(`with externalTxId ${params.externalTxId}`);
      return { status: 200, body: view(ctx, tx) };
    },
  },
  {
    method: 'POST',
    template: '/transactions/{txId}/cancel',
    handle(ctx, { params }) {
      const tx = ctx.engine.find(params.txId);
      if (!tx) throw ApiErrors.transactionNotFound(params.txId);
      if (!ctx.engine.cancel(tx.id)) {
        throw ApiErrors.badRequest(`Transaction ${tx.id} cannot be cancelled in status ${tx.status}`);
      }
      return { status: 200, body: { success: true } };
    },
  },
  {
    method: 'POST',
    template: '/transactions/{txId}/drop',
    handle(ctx, { params, body, apiKey }) {
      const tx = ctx.engine.find(params.txId);
      if (!tx) throw ApiErrors.transactionNotFound(params.txId);
      const request = parseDrop(body);
      const why = notReplaceable(tx);
      if (why) throw ApiErrors.badRequest(`Transaction ${tx.id} cannot be dropped ${why}`);
      const replacement = ctx.engine.create(
        dropTransaction(tx, ctx.engine.keys.account(tx.vaultId).address, request),
        apiKey,
      );
      // DropTransactionResponse of @fireblocks/ts-sdk (`txStatus`, `txId`, `replacedTxHash`), and of the earlier
      // fireblocks-sdk (`success`, `transactions`: the new transactions' ids).
      return {
        status: 200,
        body: {
          txStatus: replacement.status,
          txId: replacement.id,
          replacedTxHash: replacement.replacedTxHash,
          success: true,
          transactions: [replacement.id],
        },
      };
    },
  },
];
