import { concat, type Hex, keccak256, type PrivateKeyAccount, stringToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** The vault accounts' keys: each derived from the state's seed, the same for every EVM asset of the account. */
export class VaultKeys {
  private readonly accounts = new Map<string, PrivateKeyAccount>();

  constructor(private readonly seed: Hex) {}

  account(vaultId: string): PrivateKeyAccount {
    let account = this.accounts.get(vaultId);
    if (!account) {
      account = privateKeyToAccount(keccak256(concat([this.seed, stringToHex(`vault:${vaultId}`)])));
      this.accounts.set(vaultId, account);
    }
    return account;
  }
}
