import {
  type Hex,
  hashMessage,
  hashTypedData,
  keccak256,
  type LocalAccount,
  type SerializeTransactionFn,
  serializeSignature,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem';
import { toAccount } from 'viem/accounts';

/** A signature of a hash by the key service: r, s (low) and the recovery id that gives the wallet's address. */
export type SignHash = (hash: Hex) => Promise<{ r: Hex; s: Hex; yParity: 0 | 1 }>;

/**
 * A viem account of `address` whose every signature is asked of the key service (`signHash`): the key is never in
 * this process. Its `source` is 'aws-kms' (see signsRandomized: its signatures differ each time).
 */
export function kmsAccount(address: string, signHash: SignHash): LocalAccount<'aws-kms'> {
  const account = toAccount({
    address: address as Hex,
    async signMessage({ message }) {
      return serializeSignature(await signHash(hashMessage(message)));
    },
    async signTypedData(typedData) {
      return serializeSignature(await signHash(hashTypedData(typedData as never)));
    },
    async signTransaction<T extends TransactionSerializable>(
      transaction: T,
      options?: { serializer?: SerializeTransactionFn<T> },
    ) {
      const serializer = options?.serializer ?? (serializeTransaction as SerializeTransactionFn<T>);
      const signable = transaction.type === 'eip4844' ? { ...transaction, sidecars: false } : transaction;
      const { r, s, yParity } = await signHash(keccak256(await serializer(signable)));
      return serializer(transaction, { r, s, yParity, v: yParity === 1 ? 28n : 27n });
    },
  });
  return { ...account, source: 'aws-kms' } as LocalAccount<'aws-kms'>;
}
