import type { LocalAccount } from 'viem';
import type { WalletKeys } from './walletKeys.ts';

export type WalletType = 'fireblocks' | 'from-mnemonic';
export type OwnerType = 'shared' | 'dedicated';

export interface SystemWalletRecord {
  id: number;
  address: string;
  type: WalletType;
  derivationIndex: number | null;
}

/** Raised when a custody type is chosen that this deployment has no credentials for. */
export class WalletProviderNotConfiguredError extends Error {
  override name = 'WalletProviderNotConfiguredError';
}

/**
 * Gives the account that signs for a system wallet. Every custody type sits behind this one interface;
 * transactions are signed through it and never see key material.
 */
export interface SignerProvider {
  signerFor(wallet: SystemWalletRecord): LocalAccount;
}

export const FIREBLOCKS_NOT_CONFIGURED =
  'Fireblocks custody is not configured for this deployment (FIREBLOCKS_API_KEY and FIREBLOCKS_API_SECRET are not set); use from-mnemonic wallets';

export function createSignerProvider(keys: WalletKeys): SignerProvider {
  return {
    signerFor(wallet) {
      if (wallet.type === 'fireblocks') throw new WalletProviderNotConfiguredError(FIREBLOCKS_NOT_CONFIGURED);
      if (wallet.derivationIndex === null) throw new Error(`Wallet ${wallet.id} has no derivation index`);
      const account = keys.account(wallet.derivationIndex);
      if (account.address.toLowerCase() !== wallet.address.toLowerCase()) {
        throw new Error(`Wallet ${wallet.id} does not match the deployment mnemonic`);
      }
      return account;
    },
  };
}
