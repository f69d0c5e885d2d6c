import type { TransactionResponse } from '@fireblocks/ts-sdk';
import { formatEther, formatGwei, type Hex } from 'viem';
import type { NetworkId } from '#api/config/networks.ts';
import {
  type CustodianView,
  type CustodyCall,
  CustodyNotConfiguredError,
  type SubmitOutcome,
  type Submitter,
} from '../custody.ts';
import { DUPLICATE_EXTERNAL_TX_ID, type FireblocksApi, FireblocksCallError } from './fireblocksApi.ts';
import type { FireblocksSettings } from './settings.ts';
import { ensureAssetWallet } from './vaults.ts';

/** Fireblocks' final statuses other than COMPLETED: before a hash exists, the row is broadcast-failed. */
const FAILED = new Set(['REJECTED', 'BLOCKED', 'CANCELLED', 'FAILED']);

/**
 * Fireblocks as a submitter: one `CONTRACT_CALL` per row from the wallet's vault account to the contract as a
 * one-time address, the row's value as `amount` (in ether), the calldata in `extraParameters.contractCallData` (a
 * row without calldata, a plain transfer, is a `TRANSFER` of the amount instead), the row's gas limit, its fee cap
 * as `maxFee` and its tip as `priorityFee` (gwei), `externalTxId` = the row's id, and an `Idempotency-Key` per
 * attempt. Exactly once, whatever fails:
 * - a row that may have reached Fireblocks (a timeout, a lost answer, a 5xx, a crash after sending) is looked up by
 *   its externalTxId before it is sent again;
 * - a create refused because the externalTxId exists (code 1438) is that transaction, looked up;
 * - Fireblocks refuses an Idempotency-Key reused after a 5xx, so a retry after one takes a new key;
 * - 429 and 5xx are "not now", never a failure of the row.
 */
export function createFireblocksSubmitter(api: FireblocksApi, settings: FireblocksSettings): Submitter {
  const assetOf = (networkId: number): string => {
    const assetId = settings.assetIds[networkId as NetworkId];
    if (!assetId) {
      throw new CustodyNotConfiguredError(
        `Network ${networkId} has no Fireblocks asset on this deployment: set FIREBLOCKS_ASSET_ID_${networkId} to the asset id of its native coin in your workspace`,
        `FIREBLOCKS_ASSET_ID_${networkId}`,
      );
    }
    return assetId;
  };

  async function lookUp(rowId: string): Promise<CustodianView | undefined> {
    try {
      return viewOf(await api.read((sdk) => sdk.transactions.getTransactionByExternalId({ externalTxId: rowId })));
    } catch (error) {
      if (
        error instanceof FireblocksCallError &&
        error.failure === 'refused' &&
        [400, 404].includes(error.status ?? 0)
      ) {
        return undefined;
      }
      throw error;
    }
  }

  // Vault accounts and assets known to have a wallet: a network served after a vault was made gets its wallet at
  // its first transaction.
  const wallets = new Set<string>();
  async function create(call: CustodyCall): Promise<CustodianView> {
    const assetId = assetOf(call.networkId);
    if (!wallets.has(`${call.custodyRef}/${assetId}`)) {
      await ensureAssetWallet(api, call.custodyRef, assetId);
      wallets.add(`${call.custodyRef}/${assetId}`);
    }
    const answer = await api.write((sdk) =>
      sdk.transactions.createTransaction({
        idempotencyKey: idempotencyKey(call.rowId, call.keyAttempt),
        transactionRequest: { ...callRequest(call, assetId), externalTxId: call.rowId },
      }),
    );
    const status = String(answer.status ?? 'SUBMITTED');
    return {
      id: String(answer.id),
      status,
      subStatus: null,
      hash: null,
      failed: FAILED.has(status),
      description: `Fireblocks ${status}`,
      updatedMs: null,
    };
  }

  /** An operation's failure in the pipeline's terms: refused for good (a 4xx), or not now. */
  const failed = (error: unknown): { kind: 'refused' | 'retry'; message: string } => {
    if (error instanceof CustodyNotConfiguredError) return { kind: 'refused', message: error.message };
    if (!(error instanceof FireblocksCallError)) throw error;
    const forGood = error.failure === 'refused' && error.status !== 401 && error.status !== 403;
    return { kind: forGood ? 'refused' : 'retry', message: error.message };
  };

  return {
    provider: 'fireblocks',
    // POST /transactions/{txId}/cancel: only before Fireblocks signs it (a 400 after).
    async cancel(custodyId, rowId) {
      try {
        await api.write((sdk) =>
          sdk.transactions.cancelTransaction({ txId: custodyId, idempotencyKey: operationKey(rowId, 'c', 0) }),
        );
        return { kind: 'cancelled' };
      } catch (error) {
        const answer = failed(error);
        return answer.kind === 'refused' ? { kind: 'too-late' } : answer;
      }
    },
    // A drop (POST /transactions/{txId}/drop: "a replacement transaction with 0 amount" to the source itself, at
    // the fast fee) or a boost (a create with replaceTxByHash: the same nonce, the fees given). A replacement has an
    // externalTxId of its own (the row's id is the original's); its webhooks are not applied, its status is polled.
    async replace(replacement) {
      try {
        if (replacement.kind === 'drop') {
          const answer = await api.write((sdk) =>
            sdk.transactions.dropTransaction({
              txId: replacement.custodyId,
              dropTransactionRequest: { feeLevel: 'HIGH' },
              idempotencyKey: operationKey(replacement.rowId, 'd', replacement.attempt),
            }),
          );
          if (!answer.txId) return { kind: 'retry', message: 'Fireblocks answered the drop without a transaction id' };
          return { kind: 'replacing', id: String(answer.txId) };
        }
        const { call, attempt } = replacement;
        const answer = await api.write((sdk) =>
          sdk.transactions.createTransaction({
            idempotencyKey: operationKey(call.rowId, 'b', attempt),
            transactionRequest: {
              ...callRequest(call, assetOf(call.networkId)),
              externalTxId: `${call.rowId}.${attempt}`,
              replaceTxByHash: replacement.replacesHash,
            },
          }),
        );
        return { kind: 'replacing', id: String(answer.id) };
      } catch (error) {
        return failed(error);
      }
    },
    pollIntervalMs: settings.pollIntervalMs,
    checkNetwork: (networkId) => void assetOf(networkId),
    async status(custodyId) {
      return viewOf(await api.read((sdk) => sdk.transactions.getTransaction({ txId: custodyId })));
    },
    async submit(call): Promise<SubmitOutcome> {
      try {
        if (call.inDoubt) {
          const found = await lookUp(call.rowId);
          if (found) return { kind: 'submitted', view: found };
        }
        return { kind: 'submitted', view: await create(call) };
      } catch (error) {
        if (error instanceof CustodyNotConfiguredError) return { kind: 'refused', message: error.message };
        if (!(error instanceof FireblocksCallError)) throw error;
        if (error.failure === 'refused') {
          if (error.fireblocksCode === DUPLICATE_EXTERNAL_TX_ID) {
            const found = await lookUp(call.rowId).catch(() => undefined);
            if (found) return { kind: 'submitted', view: found };
            return { kind: 'retry', message: error.message, afterMs: 1_000, newKey: false };
          }
          // A key used with a request that ended in a 5xx: a new key, and a look-up first (it may exist).
          if (error.status === 400 && /idempotency/i.test(error.message)) {
            return { kind: 'retry', message: error.message, afterMs: 0, newKey: true };
          }
          if (error.status === 401 || error.status === 403) {
            // The API user's key or permissions: nothing the row did; it waits until the operator fixes it.
            return {
              kind: 'retry',
              message: `${error.message} (check FIREBLOCKS_API_KEY and the API user's role)`,
              afterMs: 30_000,
              newKey: false,
            };
          }
          return { kind: 'refused', message: error.message };
        }
        const afterMs = error.retryAfterMs ?? (error.failure === 'rate-limited' ? 2_000 : 1_000);
        return { kind: 'retry', message: error.message, afterMs, newKey: error.failure === 'unavailable' };
      }
    },
  };
}

/** At most 40 characters, as Fireblocks takes: the row's id without dashes (32), a dash and the attempt. */
export function idempotencyKey(rowId: string, attempt: number): string {
  return `${rowId.replaceAll('-', '')}-${attempt}`;
}

/** The key of an operation on a row's transaction: c (cancel), d (drop) or b (boost), and its attempt. */
const operationKey = (rowId: string, operation: 'c' | 'd' | 'b', attempt: number) =>
  `${rowId.replaceAll('-', '')}-${operation}${attempt}`;

/** A row's call as a create request's fields (without its externalTxId). */
function callRequest(call: CustodyCall, assetId: string) {
  return {
    // A plain transfer of value (a receive() call: no calldata) is a TRANSFER; anything else a CONTRACT_CALL.
    ...(call.data === '0x'
      ? { operation: 'TRANSFER' as const }
      : { operation: 'CONTRACT_CALL' as const, extraParameters: { contractCallData: call.data } }),
    assetId,
    source: { type: 'VAULT_ACCOUNT' as const, id: call.custodyRef },
    destination: { type: 'ONE_TIME_ADDRESS' as const, oneTimeAddress: { address: call.to } },
    // In the asset's units: the native coin's, 18 decimals on every EVM network.
    amount: formatEther(call.value),
    gasLimit: call.gasLimit.toString(),
    maxFee: formatGwei(call.maxFeePerGas),
    priorityFee: formatGwei(call.maxPriorityFeePerGas),
    note: `Mountain transaction ${call.rowId}`,
  };
}

/** A Fireblocks transaction in the pipeline's terms. */
export function viewOf(t: TransactionResponse): CustodianView {
  const status = String(t.status ?? 'SUBMITTED');
  const subStatus = t.subStatus ? String(t.subStatus) : null;
  const hash = typeof t.txHash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(t.txHash) ? (t.txHash as Hex) : null;
  const description = [
    `Fireblocks ${status}${subStatus ? ` (${subStatus})` : ''}`,
    typeof t.errorDescription === 'string' && t.errorDescription ? t.errorDescription : undefined,
  ]
    .filter(Boolean)
    .join(': ');
  const updatedMs = typeof t.lastUpdated === 'number' && Number.isFinite(t.lastUpdated) ? t.lastUpdated : null;
  return { id: String(t.id), status, subStatus, hash, failed: FAILED.has(status), description, updatedMs };
}
