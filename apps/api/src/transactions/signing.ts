import type { Address, Hex, LocalAccount } from 'viem';
import type { Db } from '#api/db/db.ts';
import { custodyRefSql } from '#api/wallets/custodians.ts';
import type { SystemWalletRecord } from '#api/wallets/signer.ts';

/** The system wallet a signer is made for (`signers.signerFor`). */
export async function walletRecord(db: Pick<Db, 'query'>, walletId: number): Promise<SystemWalletRecord> {
  const { rows } = await db.query<SystemWalletRecord>(
    `SELECT id, address, type, derivation_index AS "derivationIndex",
            ${custodyRefSql()} AS "custodyRef"
       FROM system_wallets WHERE id = $1`,
    [walletId],
  );
  return rows[0] as SystemWalletRecord;
}

/** A call with its nonce, gas limit and fees fixed: signing it again gives the same bytes and hash. */
export interface FixedCall {
  to: Address;
  data?: Hex;
  /** Wei; absent: none. */
  value?: bigint | string;
  nonce: number | string;
  gas: bigint | string;
  maxFeePerGas: bigint | string;
  maxPriorityFeePerGas: bigint | string;
}

/** Signs `call` as the platform sends every transaction: EIP-1559. */
export function signEip1559(account: LocalAccount, chainId: number, call: FixedCall): Promise<Hex> {
  return account.signTransaction({
    chainId,
    type: 'eip1559',
    to: call.to,
    ...(call.data ? { data: call.data } : {}),
    value: BigInt(call.value ?? 0),
    nonce: Number(call.nonce),
    gas: BigInt(call.gas),
    maxFeePerGas: BigInt(call.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(call.maxPriorityFeePerGas),
  });
}
