import { ECDH, pbkdf2Sync } from 'node:crypto';
import { type Address, type Hex, toHex } from 'viem';
import {
  english,
  generateMnemonic,
  type HDAccount,
  HDKey,
  privateKeyToAccount,
  publicKeyToAddress,
} from 'viem/accounts';
import { deploymentSecretContext } from '#api/crypto/sealedColumns.ts';
import { type MasterKeys, open, seal } from '#api/crypto/secretBox.ts';
import type { Db } from '#api/db/db.ts';
import { withFastSigning } from './fastSigner.ts';

const SECRET_NAME = 'wallet-mnemonic';
/**
 * The wallets' parent public key (m/44'/60'/0'/0 as an xpub), sealed like the mnemonic: what a process that must
 * not hold the keys (the API) derives new wallets' addresses from (walletAddresses).
 */
const PUBLIC_KEY_NAME = 'wallet-xpub';

/** The addresses of the deployment's from-mnemonic wallets, by derivation index. */
export interface WalletAddresses {
  address(derivationIndex: number): Address;
}

/** The deployment's HD wallet: one mnemonic, stored encrypted; every from-mnemonic system wallet is an index of it. */
export interface WalletKeys extends WalletAddresses {
  account(derivationIndex: number): HDAccount;
}

/** A wallet is a normal child: an index of 2^31 or more would be a hardened one, which the path does not have. */
function checkIndex(derivationIndex: number): void {
  if (!Number.isInteger(derivationIndex) || derivationIndex < 0 || derivationIndex >= 2 ** 31) {
    throw new RangeError(`A wallet's derivation index is 0 to 2^31 - 1, not ${derivationIndex}`);
  }
}

/** The deployment mnemonic's wallets were never loaded (no worker has started, no project was made). */
export class WalletAddressesUnavailableError extends Error {
  override name = 'WalletAddressesUnavailableError';
}

/**
 * The addresses of the from-mnemonic wallets, from the parent public key a worker or the admin CLI stored when it
 * loaded the mnemonic: no private key is ever in this process's memory.
 */
export async function walletAddresses(db: Db, masterKey: MasterKeys): Promise<WalletAddresses> {
  const { rows } = await db.query<{ ciphertext: Buffer }>('SELECT ciphertext FROM deployment_secrets WHERE name = $1', [
    PUBLIC_KEY_NAME,
  ]);
  const row = rows[0];
  if (!row) {
    throw new WalletAddressesUnavailableError(
      'The deployment mnemonic has not been loaded yet: start the worker (or run mountain-admin) once',
    );
  }
  const parent = HDKey.fromExtendedKey(open(masterKey, row.ciphertext, deploymentSecretContext(PUBLIC_KEY_NAME)));
  const cache = new Map<number, Address>();
  return {
    address(derivationIndex) {
      let address = cache.get(derivationIndex);
      if (!address) {
        checkIndex(derivationIndex);
        const compressed = parent.deriveChild(derivationIndex).publicKey as Uint8Array;
        const uncompressed = ECDH.convertKey(Buffer.from(compressed), 'secp256k1', undefined, 'hex', 'uncompressed');
        address = publicKeyToAddress(`0x${uncompressed as string}` as Hex);
        cache.set(derivationIndex, address);
      }
      return address;
    },
  };
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
  await db.query('INSERT INTO deployment_secrets (name, ciphertext) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    PUBLIC_KEY_NAME,
    seal(masterKey, parent.publicExtendedKey, deploymentSecretContext(PUBLIC_KEY_NAME)),
  ]);
  const cache = new Map<number, HDAccount>();
  const keys: WalletKeys = {
    address: (derivationIndex) => keys.account(derivationIndex).address,
    account(derivationIndex) {
      let account = cache.get(derivationIndex);
      if (!account) {
        checkIndex(derivationIndex);
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
  return keys;
}
