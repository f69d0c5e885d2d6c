import { pbkdf2Sync } from 'node:crypto';
import { english, generateMnemonic, type HDAccount, HDKey, hdKeyToAccount } from 'viem/accounts';
import { open, seal } from '#api/crypto/secretBox.ts';
import type { Db } from '#api/db/db.ts';
import { withFastSigning } from './fastSigner.ts';

const SECRET_NAME = 'wallet-mnemonic';

/** The deployment's HD wallet: one mnemonic, stored encrypted; every from-mnemonic system wallet is an index of it. */
export interface WalletKeys {
  account(derivationIndex: number): HDAccount;
}

/** Loads the deployment mnemonic, creating it on first use (concurrent first starts agree on one). */
export async function loadWalletKeys(db: Db, masterKey: Buffer): Promise<WalletKeys> {
  const context = `deployment_secrets:${SECRET_NAME}`;
  await db.query('INSERT INTO deployment_secrets (name, ciphertext) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    SECRET_NAME,
    seal(masterKey, generateMnemonic(english, 256), context),
  ]);
  const { rows } = await db.query<{ ciphertext: Buffer }>('SELECT ciphertext FROM deployment_secrets WHERE name = $1', [
    SECRET_NAME,
  ]);
  let mnemonic: string;
  try {
    mnemonic = open(masterKey, (rows[0] as { ciphertext: Buffer }).ciphertext, context);
  } catch (error) {
    throw new Error('Cannot decrypt the wallet mnemonic: MASTER_KEY is not the key this database was created with', {
      cause: error,
    });
  }
  // BIP-39's seed (PBKDF2-HMAC-SHA512, 2,048 rounds, natively) and its master key, once: each wallet is then derived
  // from it at m/44'/60'/0'/0/<index>, as viem's mnemonicToAccount does, which made the seed again in JavaScript for
  // every account (37 ms each).
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const master = HDKey.fromMasterSeed(seed);
  const cache = new Map<number, HDAccount>();
  return {
    account(derivationIndex) {
      let account = cache.get(derivationIndex);
      if (!account) {
        account = withFastSigning(hdKeyToAccount(master, { addressIndex: derivationIndex }));
        cache.set(derivationIndex, account);
      }
      return account;
    },
  };
}
