import { formatEther, formatGwei, formatUnits } from 'viem';
import { NATIVE_DECIMALS } from './assetChains.ts';
import type { TransactionRecord } from './simulatorState.ts';

/**
 * A transaction as `GET /transactions/{id}` answers it (TransactionResponse in @fireblocks/ts-sdk models). Fields the
 * model documents as present only once on chain (`sourceAddress`, `destinationAddress`, `txHash`: "if the status is
 * CONFIRMING, COMPLETED, or has been CONFIRMING") follow that rule: a transaction the node refused when it was
 * broadcast ends FAILED without them. The amount is the request's, in the asset's units: as a string in `amountInfo`
 * (`amount`, `requestedAmount`, and `netAmount` the same, as the fee is paid beside it: `treatAsGrossAmount` false),
 * as a number in the deprecated `amount`, `requestedAmount` and `netAmount`; no USD price is known here, so
 * `amountUSD` is 0. A TRANSFER carries no `extraParameters.contractCallData`.
 */
export function transactionView(tx: TransactionRecord, vaultName: string, sourceAddress: string) {
  const sent =
    tx.versions.length > 0 &&
    tx.status !== 'BROADCASTING' &&
    tx.status !== 'PENDING_SIGNATURE' &&
    // A state written before `accepted` was kept: as then.
    (tx.accepted ?? true);
  const last = tx.versions[tx.versions.length - 1];
  const txHash = tx.minedHash ?? (sent ? last?.hash : undefined);
  const fee = tx.gasUsed && tx.effectiveGasPrice ? BigInt(tx.gasUsed) * BigInt(tx.effectiveGasPrice) : undefined;
  const networkFee = fee === undefined ? undefined : formatEther(fee);
  const source = { id: tx.vaultId, type: 'VAULT_ACCOUNT', name: vaultName, subType: '' };
  const destination = { id: null, type: 'ONE_TIME_ADDRESS', name: 'N/A', subType: '' };
  const amount = formatUnits(BigInt(tx.value ?? '0'), NATIVE_DECIMALS);
  return {
    id: tx.id,
    externalTxId: tx.externalTxId,
    status: tx.status,
    subStatus: tx.subStatus,
    txHash: txHash ?? '',
    operation: tx.operation,
    note: tx.note,
    assetId: tx.assetId,
    assetType: 'BASE_ASSET',
    source,
    sourceAddress: sent ? sourceAddress : '',
    destination,
    destinationAddress: sent ? tx.destinationAddress : '',
    destinationAddressDescription: '',
    destinationTag: '',
    addressType: 'ONE_TIME',
    amountInfo: { amount, requestedAmount: amount, netAmount: amount, amountUSD: '0' },
    amount: Number(amount),
    requestedAmount: Number(amount),
    netAmount: Number(amount),
    amountUSD: 0,
    treatAsGrossAmount: false,
    feeInfo: {
      ...(networkFee === undefined ? {} : { networkFee }),
      ...(tx.effectiveGasPrice ? { gasPrice: formatGwei(BigInt(tx.effectiveGasPrice)) } : {}),
    },
    networkFee: networkFee === undefined ? 0 : Number(networkFee),
    fee: networkFee === undefined ? 0 : Number(networkFee),
    feeCurrency: tx.assetId,
    networkRecords: sent
      ? tx.versions.map((v) => ({
          source,
          destination,
          txHash: v.hash,
          networkFee: v.hash === tx.minedHash && networkFee !== undefined ? networkFee : '0',
          assetId: tx.assetId,
          netAmount: amount,
          isDropped: tx.minedHash ? v.hash !== tx.minedHash : v !== last,
          type: tx.operation,
          destinationAddress: tx.destinationAddress,
          amountUSD: '0',
        }))
      : [],
    createdAt: tx.createdAt,
    lastUpdated: tx.lastUpdated,
    createdBy: tx.createdBy,
    signedBy: tx.versions.length > 0 ? [tx.createdBy] : [],
    rejectedBy: tx.status === 'REJECTED' ? 'simulator-approver' : '',
    exchangeTxId: '',
    customerRefId: tx.customerRefId,
    numOfConfirmations: tx.numOfConfirmations,
    ...(tx.blockNumber === undefined
      ? {}
      : { blockInfo: { blockHeight: String(tx.blockNumber), blockHash: tx.blockHash ?? null } }),
    gasLimit: tx.gasLimit,
    extraParameters: tx.operation === 'TRANSFER' ? {} : { contractCallData: tx.data },
    ...(tx.errorDescription ? { errorDescription: tx.errorDescription } : {}),
    ...(tx.replacedTxHash
      ? { replacedTxHash: tx.replacedTxHash }
      : tx.versions.length > 1
        ? { replacedTxHash: tx.versions[tx.versions.length - 2]?.hash }
        : {}),
    ...(tx.nonce === undefined ? {} : { nonce: String(tx.nonce) }),
    index: 0,
    systemMessages: [],
  };
}

export type TransactionView = ReturnType<typeof transactionView>;
