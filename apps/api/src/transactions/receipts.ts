import { type Hex, type PublicClient, type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem';

/** The receipt of whichever of the transaction's hashes was mined (a fee bump leaves several candidates). */
export async function receiptOf(client: PublicClient, hashes: Hex[]): Promise<TransactionReceipt | undefined> {
  for (const hash of [...hashes].reverse()) {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
    }
  }
  return undefined;
}
