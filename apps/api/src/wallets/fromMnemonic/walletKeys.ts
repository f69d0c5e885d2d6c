import { pbkdf2Sync } from 'node:crypto';
import { toHex } from 'viem';
import { english, generateMnemonic, type HDAccount, HDKey, privateKeyToAccount } from 'viem/accounts';
import { deploymentSecretContext } from '#api/crypto/sealedColumns.ts';
import { type MasterKeys, open, seal } from '#api/crypto/secretBox.ts';
import type { Db } from '#api/db/db.ts';
import { withFastSigning } from './fastSigner.ts';

const SECRET_NAME = 'wallet-mnemonic';

/** The deployment's HD wallet: one mnemonic, stored encrypted; every from-mnemonic system wallet is an index of it. */
export interface WalletKeys {
  account(derivationIndex: number): HDAccount;
}

/** Loads the deployment mnemonic, creating it on first use (concurrent first starts agree on one). */
export async function loadWalletKeys(db: Db, masterKey: MasterKeys): Promise<WalletKeys> {
  const context = deploymentSecretContext(SECRET_NAME);
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
  // BIP-39's seed (PBKDF2-HMAC-SHA512, 2,048 rounds, natively) and the wallets' parent key m/44'/60'/0'/0, once: each
  // wallet is then its child <index>, the key viem's mnemonicToAccount derives at m/44'/60'/0'/0/<index>, which made
  // the seed again in JavaScript (37 ms) and walked the five levels, a public key on the curve each, for every account.
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
  const cache = new Map<number, HDAccount>();
  return {
    account(derivationIndex) {
      let account = cache.get(derivationIndex);
      if (!account) {
        // A wallet is a normal child: an index of 2^31 or more would be a hardened one, which the path does not have.
        if (!Number.isInteger(derivationIndex) || derivationIndex < 0 || derivationIndex >= 2 ** 31) {
          throw new RangeError(`A wallet's derivation index is 0 to 2^31 - 1, not ${derivationIndex}`);
        }
        // What viem's hdKeyToAccount answers, from the child key.
        const key = parent.deriveChild(derivationIndex);
        if (!key.privateKey) throw new Error('The derived key has no private key');
        account = withFastSigning({
          ...privateKeyToAccount(toHex(key.privateKey)),
          getHdKey: () => key,
          source: 'hd',
        });
        cache.set(derivationIndex, account);
      }
      return account;
    },
  };
}
