import { createHash } from 'node:crypto';
import { signDigest } from './ecKey.ts';
import { KmsErrors } from './kmsErrors.ts';
import { KEY_SPECS, type KeySpec, type KeyUsage, type KmsKeyStore, type StoredKey } from './kmsKeyStore.ts';

type Input = Record<string, unknown>;
export type KmsAction = (store: KmsKeyStore, input: Input) => unknown;

/** The most tags on one key (AWS: 50), and the bounds of a tag's key and value. */
const MAX_TAGS = 50;

const validation = (field: string, constraint: string, value: unknown = null) =>
  KmsErrors.validation(
    `1 validation error detected: Value ${value === null ? 'null' : `'${String(value)}'`} at '${field}' failed to satisfy constraint: ${constraint}`,
  );

function text(input: Input, field: string, required: boolean, max = 2048): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) {
    if (required) throw validation(camel(field), 'Member must not be null');
    return undefined;
  }
  if (typeof value !== 'string') throw KmsErrors.serialization(`Start of structure or map found where not expected`);
  if (value.length > max) throw validation(camel(field), `Member must have length less than or equal to ${max}`, value);
  return value;
}

function camel(field: string): string {
  return field.charAt(0).toLowerCase() + field.slice(1);
}

function metadata(store: KmsKeyStore, key: StoredKey) {
  const asymmetric = key.keySpec !== 'SYMMETRIC_DEFAULT';
  return {
    AWSAccountId: store.accountId,
    KeyId: key.keyId,
    Arn: store.arn(key.keyId),
    CreationDate: key.creationDate,
    Enabled: key.state === 'Enabled',
    Description: key.description,
    KeyUsage: key.keyUsage,
    KeyState: key.state,
    ...(key.deletionDate !== undefined
      ? { DeletionDate: key.deletionDate, PendingDeletionWindowInDays: key.pendingWindowInDays }
      : {}),
    Origin: 'AWS_KMS',
    KeyManager: 'CUSTOMER',
    CustomerMasterKeySpec: key.keySpec,
    KeySpec: key.keySpec,
    ...(asymmetric ? { SigningAlgorithms: ['ECDSA_SHA_256'] } : { EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'] }),
    MultiRegion: false,
  };
}

function tagsOf(input: Input): Record<string, string> {
  const tags = input.Tags ?? [];
  if (!Array.isArray(tags)) throw KmsErrors.serialization('Start of structure or map found where not expected');
  if (tags.length > MAX_TAGS) throw KmsErrors.validation(`Too many tags: at most ${MAX_TAGS} tags per key`);
  const out: Record<string, string> = {};
  for (const tag of tags as { TagKey?: unknown; TagValue?: unknown }[]) {
    if (typeof tag?.TagKey !== 'string' || tag.TagKey.length < 1 || tag.TagKey.length > 128) {
      throw validation('tags.member.tagKey', 'Member must have length between 1 and 128', tag?.TagKey ?? null);
    }
    if (typeof tag.TagValue !== 'string' || tag.TagValue.length > 256) {
      throw validation(
        'tags.member.tagValue',
        'Member must have length less than or equal to 256',
        tag.TagValue ?? null,
      );
    }
    if (tag.TagKey.startsWith('aws:')) throw KmsErrors.validation('Tags beginning with aws: are reserved');
    out[tag.TagKey] = tag.TagValue;
  }
  return out;
}

function base64Blob(input: Input, field: string): Buffer {
  const value = input[field];
  if (value === undefined || value === null) throw validation(camel(field), 'Member must not be null');
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
    throw KmsErrors.serialization(`Base64 encoded blob is invalid for '${field}'`);
  }
  return Buffer.from(value, 'base64');
}

/** The actions of the AWS KMS API the simulator carries out (API reference, "Actions"), by X-Amz-Target name. */
export const KMS_ACTIONS: Record<string, KmsAction> = {
  CreateKey(store, input) {
    const keySpec = (text(input, 'KeySpec', false) ?? 'SYMMETRIC_DEFAULT') as KeySpec;
    if (!KEY_SPECS.includes(keySpec)) {
      throw validation('keySpec', `Member must satisfy enum value set: [${KEY_SPECS.join(', ')}]`, keySpec);
    }
    const keyUsage = (text(input, 'KeyUsage', false) ??
      (keySpec === 'SYMMETRIC_DEFAULT' ? 'ENCRYPT_DECRYPT' : undefined)) as KeyUsage | undefined;
    if (keyUsage === undefined) {
      throw KmsErrors.validation(`You must specify a KeyUsage value for an asymmetric KMS key.`);
    }
    const valid = keySpec === 'SYMMETRIC_DEFAULT' ? keyUsage === 'ENCRYPT_DECRYPT' : keyUsage === 'SIGN_VERIFY';
    if (!valid) throw KmsErrors.validation(`KeyUsage ${keyUsage} is not compatible with KeySpec ${keySpec}`);
    const description = text(input, 'Description', false, 8192) ?? '';
    const key = store.create(keySpec, keyUsage, description, tagsOf(input));
    return { KeyMetadata: metadata(store, key) };
  },

  DescribeKey(store, input) {
    return { KeyMetadata: metadata(store, store.resolve(input.KeyId, true)) };
  },

  GetPublicKey(store, input) {
    const key = store.resolve(input.KeyId, true);
    store.usable(key);
    const pair = store.pair(key);
    if (!pair) {
      throw KmsErrors.unsupported(`${store.arn(key.keyId)} is a symmetric KMS key: it has no public key.`);
    }
    return {
      KeyId: store.arn(key.keyId),
      PublicKey: pair.spki.toString('base64'),
      CustomerMasterKeySpec: key.keySpec,
      KeySpec: key.keySpec,
      KeyUsage: key.keyUsage,
      SigningAlgorithms: ['ECDSA_SHA_256'],
    };
  },

  Sign(store, input) {
    const key = store.resolve(input.KeyId, true);
    const message = base64Blob(input, 'Message');
    if (message.length < 1 || message.length > 4096) {
      throw validation('message', 'Member must have length between 1 and 4096', '[bytes]');
    }
    const messageType = text(input, 'MessageType', false) ?? 'RAW';
    if (messageType !== 'RAW' && messageType !== 'DIGEST') {
      throw validation('messageType', 'Member must satisfy enum value set: [RAW, DIGEST, EXTERNAL_MU]', messageType);
    }
    const algorithm = text(input, 'SigningAlgorithm', true);
    store.usable(key);
    if (key.keyUsage !== 'SIGN_VERIFY') {
      throw KmsErrors.invalidKeyUsage(
        `${store.arn(key.keyId)} key usage is ${key.keyUsage} which is not valid for Sign.`,
      );
    }
    if (algorithm !== 'ECDSA_SHA_256') {
      throw KmsErrors.invalidKeyUsage(
        `Signing algorithm ${algorithm} is not valid for ${store.arn(key.keyId)}: use one of [ECDSA_SHA_256].`,
      );
    }
    if (messageType === 'DIGEST' && message.length !== 32) {
      throw KmsErrors.validation('Digest is invalid length for algorithm ECDSA_SHA_256.');
    }
    const digest = messageType === 'DIGEST' ? message : createHash('sha256').update(message).digest();
    const pair = store.pair(key);
    if (!pair) throw KmsErrors.invalidKeyUsage(`${store.arn(key.keyId)} is not an asymmetric KMS key.`);
    return {
      KeyId: store.arn(key.keyId),
      Signature: signDigest(pair, digest).toString('base64'),
      SigningAlgorithm: 'ECDSA_SHA_256',
    };
  },

  CreateAlias(store, input) {
    const aliasName = text(input, 'AliasName', true, 256) as string;
    if (!/^alias\/[a-zA-Z0-9/_-]+$/.test(aliasName)) {
      throw validation(
        'aliasName',
        'Member must satisfy regular expression pattern: ^alias/[a-zA-Z0-9/_-]+$',
        aliasName,
      );
    }
    if (aliasName.startsWith('alias/aws/')) {
      throw KmsErrors.notFound('Alias names that begin with alias/aws/ are reserved for AWS managed keys.');
    }
    const key = store.resolve(input.TargetKeyId, false);
    if (key.state === 'PendingDeletion') throw KmsErrors.invalidState(store.arn(key.keyId), key.state);
    if (store.aliases.has(aliasName)) {
      throw KmsErrors.alreadyExists(`An alias with the name ${store.aliasArn(aliasName)} already exists`);
    }
    const now = Date.now() / 1000;
    store.aliases.set(aliasName, { aliasName, targetKeyId: key.keyId, creationDate: now, lastUpdatedDate: now });
    store.save();
    return {};
  },

  ListAliases(store, input) {
    const limit = input.Limit === undefined ? 50 : Number(input.Limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw validation('limit', 'Member must have value between 1 and 100', input.Limit);
    }
    const keyFilter = input.KeyId === undefined ? undefined : store.resolve(input.KeyId, false).keyId;
    const all = [...store.aliases.values()]
      .filter((a) => keyFilter === undefined || a.targetKeyId === keyFilter)
      .sort((a, b) => (a.aliasName < b.aliasName ? -1 : 1));
    const marker = text(input, 'Marker', false, 1024);
    let start = 0;
    if (marker !== undefined) {
      start = Number(Buffer.from(marker, 'base64').toString('utf8'));
      if (!Number.isInteger(start) || start < 0) throw KmsErrors.invalidMarker();
    }
    const page = all.slice(start, start + limit);
    const truncated = start + limit < all.length;
    return {
      Aliases: page.map((a) => ({
        AliasName: a.aliasName,
        AliasArn: store.aliasArn(a.aliasName),
        TargetKeyId: a.targetKeyId,
        CreationDate: a.creationDate,
        LastUpdatedDate: a.lastUpdatedDate,
      })),
      Truncated: truncated,
      ...(truncated ? { NextMarker: Buffer.from(String(start + limit)).toString('base64') } : {}),
    };
  },

  TagResource(store, input) {
    const key = store.resolve(input.KeyId, false);
    if (key.state === 'PendingDeletion') throw KmsErrors.invalidState(store.arn(key.keyId), key.state);
    const tags = { ...key.tags, ...tagsOf(input) };
    if (Object.keys(tags).length > MAX_TAGS)
      throw KmsErrors.validation(`Too many tags: at most ${MAX_TAGS} tags per key`);
    key.tags = tags;
    store.save();
    return {};
  },

  ListResourceTags(store, input) {
    const key = store.resolve(input.KeyId, false);
    return { Tags: Object.entries(key.tags).map(([TagKey, TagValue]) => ({ TagKey, TagValue })), Truncated: false };
  },

  DisableKey(store, input) {
    const key = store.resolve(input.KeyId, false);
    if (key.state === 'PendingDeletion') throw KmsErrors.invalidState(store.arn(key.keyId), key.state);
    key.state = 'Disabled';
    store.save();
    return {};
  },

  EnableKey(store, input) {
    const key = store.resolve(input.KeyId, false);
    if (key.state === 'PendingDeletion') throw KmsErrors.invalidState(store.arn(key.keyId), key.state);
    key.state = 'Enabled';
    store.save();
    return {};
  },

  ScheduleKeyDeletion(store, input) {
    const key = store.resolve(input.KeyId, false);
    const days = input.PendingWindowInDays === undefined ? 30 : Number(input.PendingWindowInDays);
    if (!Number.isInteger(days) || days < 7 || days > 30) {
      throw validation('pendingWindowInDays', 'Member must have value between 7 and 30', input.PendingWindowInDays);
    }
    if (key.state === 'PendingDeletion') throw KmsErrors.invalidState(store.arn(key.keyId), key.state);
    key.state = 'PendingDeletion';
    key.pendingWindowInDays = days;
    key.deletionDate = Math.floor(Date.now() / 1000) + days * 86_400;
    store.save();
    return {
      KeyId: store.arn(key.keyId),
      DeletionDate: key.deletionDate,
      KeyState: 'PendingDeletion',
      PendingWindowInDays: days,
    };
  },

  CancelKeyDeletion(store, input) {
    const key = store.resolve(input.KeyId, false);
    if (key.state !== 'PendingDeletion') throw KmsErrors.invalidState(store.arn(key.keyId), key.state);
    key.state = 'Disabled';
    delete key.deletionDate;
    delete key.pendingWindowInDays;
    store.save();
    return { KeyId: store.arn(key.keyId) };
  },
};
