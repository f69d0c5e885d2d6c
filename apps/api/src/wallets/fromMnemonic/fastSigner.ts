import { signRecoverable } from 'tiny-secp256k1';
import {
  bytesToHex,
  type HDAccount,
  type SerializeTransactionFn,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem';
import { keccakOfHex } from '#api/chain/keccak.ts';

/**
 * The account with `signTransaction` done by libsecp256k1 (the `tiny-secp256k1` WebAssembly build) instead of
 * viem's JavaScript curve: the same RFC 6979 signature, low s, byte for byte (tested against viem), at about a
 * third of the CPU. Every transaction the senders broadcast is signed here, on one thread per wallet, so this
 * bounds how many transactions one wallet confirms per second.
 */
export function withFastSigning(account: HDAccount): HDAccount {
  const privateKey = account.getHdKey().privateKey;
  if (!privateKey) throw new Error('The HD account has no private key');
  const signTransaction = async <T extends TransactionSerializable>(
    transaction: T,
    options?: { serializer?: SerializeTransactionFn<T> },
  ) => {
    const serializer = options?.serializer ?? (serializeTransaction as SerializeTransactionFn<T>);
    // As viem does: a blob transaction is signed without its sidecars.
    const signable = transaction.type === 'eip4844' ? { ...transaction, sidecars: false } : transaction;
    const hash = keccakOfHex(await serializer(signable), 'bytes');
    const { signature, recoveryId } = signRecoverable(hash, privateKey);
    return serializer(transaction, {
      r: bytesToHex(signature.subarray(0, 32)),
      s: bytesToHex(signature.subarray(32, 64)),
      v: recoveryId === 1 ? 28n : 27n,
      yParity: recoveryId as 0 | 1,
    });
  };
  return { ...account, signTransaction } as HDAccount;
}
