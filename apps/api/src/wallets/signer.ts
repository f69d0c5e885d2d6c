import type { LocalAccount } from 'viem';
import { type Custodian, type CustodyWallet, WalletProviderNotConfiguredError } from './custodian.ts';
import { clientOf, custodianOf, type RemoteCustodians, type WalletType } from './custodians.ts';
import type { Submitter } from './custody.ts';
import type { WalletKeys } from './fromMnemonic/walletKeys.ts';

export interface SystemWalletRecord extends CustodyWallet {
  type: WalletType;
}

/**
 * Gives what sends for a system wallet (DESIGN §6): a signing account for a signer custody, or the submitter of a
 * custodian that signs and broadcasts itself. Transactions never see key material.
 */
export interface SignerProvider {
  /** The account that signs for a signer wallet; throws for a submitter wallet. */
  signerFor(wallet: SystemWalletRecord): LocalAccount;
  /** The custodian that submits for this wallet; undefined for a signer wallet. Throws when it is not configured. */
  submitterFor(wallet: SystemWalletRecord): Submitter | undefined;
}

/** Throws the custodian's not-configured error when this deployment has no credentials for it. */
export function requireConfigured(custodian: Custodian, remote: RemoteCustodians): void {
  const { configuration } = custodian;
  if (configuration && clientOf(custodian, remote) === undefined) {
    throw new WalletProviderNotConfiguredError(configuration.notConfigured);
  }
}

/** The custodian that submits for wallets of `type`; undefined for a signer type. Throws when it is not configured. */
export function submitterOf(type: WalletType, remote: RemoteCustodians): Submitter | undefined {
  const custodian = custodianOf(type);
  if (!('submitter' in custodian.sends)) return undefined;
  requireConfigured(custodian, remote);
  return custodian.sends.submitter(clientOf(custodian, remote));
}

export function createSignerProvider(keys: WalletKeys, remote: RemoteCustodians = {}): SignerProvider {
  return {
    signerFor(wallet) {
      const custodian = custodianOf(wallet.type);
      if (!('signer' in custodian.sends)) {
        throw new WalletProviderNotConfiguredError(`A ${wallet.type} wallet has no signer: its custodian signs`);
      }
      requireConfigured(custodian, remote);
      return custodian.sends.signer(wallet, { keys, client: clientOf(custodian, remote) });
    },
    submitterFor: (wallet) => submitterOf(wallet.type, remote),
  };
}
