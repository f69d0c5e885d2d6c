import type { LocalAccount } from 'viem';
import { BaseError } from '#api/errors/BaseError.ts';
import type { AwsKmsCustody } from './awsKms/awsKmsCustody.ts';
import type { Submitter } from './custody.ts';
import type { FireblocksCustody } from './fireblocks/fireblocksCustody.ts';
import type { WalletKeys } from './walletKeys.ts';

export type WalletType = 'fireblocks' | 'from-mnemonic' | 'aws-kms';
export type OwnerType = 'shared' | 'dedicated';

export interface SystemWalletRecord {
  id: number;
  address: string;
  type: WalletType;
  derivationIndex: number | null;
  /** The wallet at its custodian: a Fireblocks vault account id, an AWS KMS key ARN; null for from-mnemonic. */
  custodyRef: string | null;
}

/** Raised when a custody type is chosen that this deployment has no credentials for. */
export class WalletProviderNotConfiguredError extends BaseError {
  override name = 'WalletProviderNotConfiguredError';
  readonly code = 'CUSTODY_NOT_CONFIGURED';
}

/** The custodians a deployment has credentials for, besides its mnemonic. */
export interface RemoteCustodians {
  fireblocks?: FireblocksCustody;
  awsKms?: AwsKmsCustody;
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

export const FIREBLOCKS_NOT_CONFIGURED =
  'Fireblocks custody is not configured for this deployment: set FIREBLOCKS_API_KEY and FIREBLOCKS_SECRET_KEY_PATH (see the Fireblocks wallets page of the docs), or use from-mnemonic wallets';

export const AWS_KMS_NOT_CONFIGURED =
  'AWS KMS custody is not configured for this deployment: set AWS_REGION (and credentials the AWS SDK finds; see the KMS wallets page of the docs), or use from-mnemonic wallets';

/** The custodian that submits for wallets of `type`; undefined for a signer type. Throws when it is not configured. */
export function submitterOf(type: WalletType, remote: RemoteCustodians): Submitter | undefined {
  if (type !== 'fireblocks') return undefined;
  if (!remote.fireblocks) throw new WalletProviderNotConfiguredError(FIREBLOCKS_NOT_CONFIGURED);
  return remote.fireblocks.submitter;
}

export function createSignerProvider(keys: WalletKeys, remote: RemoteCustodians = {}): SignerProvider {
  return {
    signerFor(wallet) {
      if (wallet.type === 'fireblocks')
        throw new WalletProviderNotConfiguredError('A Fireblocks wallet has no signer: Fireblocks signs');
      if (wallet.type === 'aws-kms') {
        if (!remote.awsKms) throw new WalletProviderNotConfiguredError(AWS_KMS_NOT_CONFIGURED);
        if (!wallet.custodyRef) throw new Error(`Wallet ${wallet.id} has no KMS key`);
        return remote.awsKms.account({ id: wallet.id, address: wallet.address, keyArn: wallet.custodyRef });
      }
      if (wallet.derivationIndex === null) throw new Error(`Wallet ${wallet.id} has no derivation index`);
      const account = keys.account(wallet.derivationIndex);
      if (account.address.toLowerCase() !== wallet.address.toLowerCase()) {
        throw new Error(`Wallet ${wallet.id} does not match the deployment mnemonic`);
      }
      return account;
    },
    submitterFor: (wallet) => submitterOf(wallet.type, remote),
  };
}
