import type { LocalAccount } from 'viem';
import { concurrencyLimit } from '#api/lib/concurrencyLimit.ts';
import { SignerUnavailableError } from '../custody.ts';
import { curveThread } from './curveThread.ts';
import { ethereumSignature, SignatureMismatchError } from './ethereumSignature.ts';
import { kmsAccount } from './kmsAccount.ts';
import { createKmsApi, type KmsApi, KmsCallError } from './kmsApi.ts';
import { adoptKey, keyStateWords, provisionKey, type WalletKey } from './kmsKeys.ts';
import type { AwsKmsSettings } from './settings.ts';

/** How long rows wait before the sender asks KMS again: a key someone must enable, or a service that is down. */
const KEY_UNUSABLE_RETRY_MS = 5_000;
const UNAVAILABLE_RETRY_MS = 2_000;

/** Everything the platform does with AWS KMS: keys for projects' wallets, and signing for them. */
export interface AwsKmsCustody {
  readonly settings: AwsKmsSettings;
  readonly api: KmsApi;
  /** `alias/mountain-<deployment>-project-<id>-<network type>`, or `…-shared-<network type>`. */
  aliasName(owner: number | 'shared', networkType: 'mainnet' | 'testnet'): string;
  provision: (
    alias: string,
    tags: Record<string, string>,
    made: string | undefined,
    record: (arn: string) => Promise<void>,
  ) => Promise<WalletKey>;
  adopt(keyId: string): Promise<WalletKey>;
  /** The signing account of a wallet: Sign in KMS for every transaction, checked against `address`. */
  account(wallet: { id: number; address: string; keyArn: string }): LocalAccount;
}

export function createAwsKmsCustody(
  settings: AwsKmsSettings,
  options: { retryBaseMs?: number; callTimeoutMs?: number } = {},
): AwsKmsCustody {
  const api = createKmsApi(settings, options);
  // The recovery ids of every wallet's signatures are found off the sender's event loop.
  const curve = curveThread();
  const accounts = new Map<number, LocalAccount>();

  /** Signs a 32-byte hash with the wallet's key; every failure becomes a SignerUnavailableError naming the key. */
  const signHash = async (keyArn: string, address: string, hash: `0x${string}`) => {
    try {
      const answer = await api.call('Sign', ({ client, sdk }) =>
        client.send(
          new sdk.SignCommand({
            KeyId: keyArn,
            Message: Buffer.from(hash.slice(2), 'hex'),
            MessageType: 'DIGEST',
            SigningAlgorithm: 'ECDSA_SHA_256',
          }),
        ),
      );
      return await ethereumSignature(hash, answer.Signature as Uint8Array, address, curve);
    } catch (error) {
      throw unavailable(keyArn, error);
    }
  };

  return {
    settings,
    api,
    aliasName: (owner, networkType) =>
      owner === 'shared'
        ? `alias/mountain-${settings.deployment}-shared-${networkType}`
        : `alias/mountain-${settings.deployment}-project-${owner}-${networkType}`,
    provision: (alias, tags, made, record) => provisionKey(api, alias, tags, made, record),
    adopt: (keyId) => adoptKey(api, keyId),
    account(wallet) {
      let account = accounts.get(wallet.id);
      if (!account) {
        const limit = concurrencyLimit(settings.signConcurrency);
        // The sender asks for a whole round's signatures at once. When one fails, the round stops: the signatures
        // asked for before that and still waiting for their turn fail with the same error at once, rather than each
        // asking KMS (through its retries and timeouts) for a signature nobody will send.
        let asked = 0;
        let failedBefore = 0;
        let failure: unknown;
        account = kmsAccount(wallet.address, (hash) => {
          const ticket = asked++;
          return limit(async () => {
            if (ticket < failedBefore) throw failure;
            try {
              return await signHash(wallet.keyArn, wallet.address, hash);
            } catch (error) {
              failure = error;
              failedBefore = asked;
              throw error;
            }
          });
        });
        accounts.set(wallet.id, account);
      }
      return account;
    },
  };
}

/** What the rows of a wallet say while its key cannot sign, and when the sender asks again. */
function unavailable(keyArn: string, error: unknown): SignerUnavailableError {
  if (error instanceof SignatureMismatchError) {
    return new SignerUnavailableError(
      `AWS KMS key ${keyArn}: ${error.message}; nothing is broadcast until the wallet's key is the one it was made with`,
      KEY_UNUSABLE_RETRY_MS,
      { cause: error },
    );
  }
  if (error instanceof KmsCallError && error.failure === 'key-unusable') {
    const state = error.awsName === 'DisabledException' ? 'disabled' : keyStateWords(stateOf(error.message));
    return new SignerUnavailableError(
      `AWS KMS key ${keyArn} is ${state} (${error.awsName}): the transaction waits, and is signed once the key is enabled again`,
      KEY_UNUSABLE_RETRY_MS,
      { cause: error },
    );
  }
  if (error instanceof KmsCallError && error.failure === 'unavailable') {
    return new SignerUnavailableError(
      `AWS KMS could not sign with key ${keyArn}: ${error.message}; the transaction waits and is signed when KMS answers`,
      UNAVAILABLE_RETRY_MS,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SignerUnavailableError(
    `AWS KMS key ${keyArn} cannot sign: ${message}; the transaction waits until it can`,
    KEY_UNUSABLE_RETRY_MS,
    { cause: error },
  );
}

/** KMSInvalidStateException's message ends in the state: "<arn> is pending deletion." */
function stateOf(message: string): string | undefined {
  if (/pending deletion/i.test(message)) return 'PendingDeletion';
  if (/pending import/i.test(message)) return 'PendingImport';
  if (/unavailable/i.test(message)) return 'Unavailable';
  return undefined;
}
