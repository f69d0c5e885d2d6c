import type { KeyMetadata } from '@aws-sdk/client-kms';
import type { Address } from 'viem';
import { BaseError } from '#api/errors/BaseError.ts';
import { addressOfPublicKey, NotSecp256k1Error } from './ethereumSignature.ts';
import { type KmsApi, KmsCallError } from './kmsApi.ts';

/** A KMS key a wallet signs with, and the address of its public key. */
export interface WalletKey {
  arn: string;
  address: Address;
}

/** A key that cannot be a wallet's (another spec or usage, disabled, pending deletion): refused before any use. */
export class KmsKeyRefusedError extends BaseError {
  override name = 'KmsKeyRefusedError';
  readonly code = 'INTERNAL_ERROR';
}

/** The key `alias` names, made if missing (ECC_SECG_P256K1, SIGN_VERIFY, with `tags`), and its address. */
export async function provisionKey(
  api: KmsApi,
  alias: string,
  tags: Record<string, string>,
  /** A key this creation made before (recorded), whose alias may not exist yet. */
  made: string | undefined,
  /** Records a key as soon as KMS has made it, before its alias. */
  record: (arn: string) => Promise<void>,
): Promise<WalletKey> {
  const existing = await describe(api, alias);
  if (existing) return checkedKey(api, existing, `the key of ${alias}`);
  let arn = made;
  if (!arn) {
    const created = await api.call('CreateKey', ({ client, sdk }) =>
      client.send(
        new sdk.CreateKeyCommand({
          KeySpec: 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          Description: `Mountain system wallet (${alias.slice('alias/'.length)})`,
          Tags: Object.entries(tags).map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
        }),
      ),
    );
    arn = created.KeyMetadata?.Arn as string;
    await record(arn);
  }
  try {
    await api.call('CreateAlias', ({ client, sdk }) =>
      client.send(new sdk.CreateAliasCommand({ AliasName: alias, TargetKeyId: arn })),
    );
  } catch (error) {
    if (!(error instanceof KmsCallError) || error.awsName !== 'AlreadyExistsException') throw error;
    // Another creation named its key first: that key is the wallet's; the one made here is never used.
    const winner = await describe(api, alias);
    if (!winner) throw error;
    if (winner.Arn !== arn) {
      await api
        .call('ScheduleKeyDeletion', ({ client, sdk }) =>
          client.send(new sdk.ScheduleKeyDeletionCommand({ KeyId: arn, PendingWindowInDays: 7 })),
        )
        .catch(() => {});
    }
    return checkedKey(api, winner, `the key of ${alias}`);
  }
  const metadata = await describe(api, arn as string);
  if (!metadata) throw new KmsKeyRefusedError(`The key ${arn} made for ${alias} cannot be found`);
  return checkedKey(api, metadata, `the key of ${alias}`);
}

/** An existing key taken as a wallet's key (`--kms-key-id`): refused unless an enabled secp256k1 signing key. */
export async function adoptKey(api: KmsApi, keyId: string): Promise<WalletKey> {
  const metadata = await describe(api, keyId);
  if (!metadata)
    throw new KmsKeyRefusedError(`The KMS key ${keyId} does not exist (or is in another region or account)`);
  return checkedKey(api, metadata, `The KMS key ${keyId}`);
}

async function checkedKey(api: KmsApi, metadata: KeyMetadata, what: string): Promise<WalletKey> {
  const arn = metadata.Arn as string;
  const problems: string[] = [];
  if (metadata.KeySpec !== 'ECC_SECG_P256K1') {
    problems.push(`its key spec is ${metadata.KeySpec}, not ECC_SECG_P256K1 (secp256k1, Ethereum's curve)`);
  }
  if (metadata.KeyUsage !== 'SIGN_VERIFY') problems.push(`its key usage is ${metadata.KeyUsage}, not SIGN_VERIFY`);
  if (metadata.KeyState !== 'Enabled') problems.push(`it is ${keyStateWords(metadata.KeyState)}`);
  if (problems.length > 0) {
    throw new KmsKeyRefusedError(`${what} (${arn}) cannot be a wallet's key: ${problems.join('; ')}`);
  }
  return { arn, address: await publicAddress(api, arn) };
}

/** The address of a key's public key (GetPublicKey). */
export async function publicAddress(api: KmsApi, keyId: string): Promise<Address> {
  const answer = await api.call('GetPublicKey', ({ client, sdk }) =>
    client.send(new sdk.GetPublicKeyCommand({ KeyId: keyId })),
  );
  try {
    return addressOfPublicKey(answer.PublicKey as Uint8Array);
  } catch (error) {
    if (error instanceof NotSecp256k1Error) throw new KmsKeyRefusedError(`The KMS key ${keyId}: ${error.message}`);
    throw error;
  }
}

/** "disabled", "pending deletion"… as KMS's key states read in a sentence. */
export function keyStateWords(state: string | undefined): string {
  if (state === 'PendingDeletion') return 'pending deletion';
  if (state === 'PendingReplicaDeletion') return 'pending replica deletion';
  if (state === 'PendingImport') return 'pending import';
  return (state ?? 'in an unknown state').toLowerCase();
}

/** The key's metadata; undefined when KMS says it does not exist (NotFoundException). */
async function describe(api: KmsApi, keyId: string): Promise<KeyMetadata | undefined> {
  try {
    const answer = await api.call('DescribeKey', ({ client, sdk }) =>
      client.send(new sdk.DescribeKeyCommand({ KeyId: keyId })),
    );
    return answer.KeyMetadata;
  } catch (error) {
    if (error instanceof KmsCallError && error.awsName === 'NotFoundException') return undefined;
    throw error;
  }
}
