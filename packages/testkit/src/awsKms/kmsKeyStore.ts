import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { type Curve, type EcKey, ecKeyFromScalar, generateEcKey } from './ecKey.ts';
import { KmsErrors } from './kmsErrors.ts';

export type KeySpec = 'ECC_SECG_P256K1' | 'ECC_NIST_P256' | 'SYMMETRIC_DEFAULT';
export type KeyUsage = 'SIGN_VERIFY' | 'ENCRYPT_DECRYPT';
export type KeyState = 'Enabled' | 'Disabled' | 'PendingDeletion';

export const KEY_SPECS: readonly KeySpec[] = ['ECC_SECG_P256K1', 'ECC_NIST_P256', 'SYMMETRIC_DEFAULT'];
const CURVES: Partial<Record<KeySpec, Curve>> = { ECC_SECG_P256K1: 'secp256k1', ECC_NIST_P256: 'prime256v1' };

export interface StoredKey {
  keyId: string;
  keySpec: KeySpec;
  keyUsage: KeyUsage;
  state: KeyState;
  description: string;
  creationDate: number;
  deletionDate?: number;
  pendingWindowInDays?: number;
  tags: Record<string, string>;
  /** The private scalar (hex) of an asymmetric key; it never leaves the simulator. */
  scalar?: string;
}

export interface StoredAlias {
  aliasName: string;
  targetKeyId: string;
  creationDate: number;
  lastUpdatedDate: number;
}

interface StoreData {
  keys: StoredKey[];
  aliases: StoredAlias[];
}

/**
 * The keys and aliases of one simulated account in one region, with AWS's ways of naming a key: its id, its ARN,
 * an alias name (`alias/…`) or an alias ARN. Kept in a JSON file when given one (a development install's keys
 * survive restarts).
 */
export class KmsKeyStore {
  readonly keys = new Map<string, StoredKey>();
  readonly aliases = new Map<string, StoredAlias>();
  private readonly material = new Map<string, EcKey>();

  constructor(
    readonly region: string,
    readonly accountId: string,
    private readonly statePath?: string,
  ) {
    if (statePath && existsSync(statePath)) {
      const data = JSON.parse(readFileSync(statePath, 'utf8')) as StoreData;
      for (const key of data.keys) this.keys.set(key.keyId, key);
      for (const alias of data.aliases) this.aliases.set(alias.aliasName, alias);
    }
  }

  arn(keyId: string): string {
    return `arn:aws:kms:${this.region}:${this.accountId}:key/${keyId}`;
  }

  aliasArn(aliasName: string): string {
    return `arn:aws:kms:${this.region}:${this.accountId}:${aliasName}`;
  }

  create(keySpec: KeySpec, keyUsage: KeyUsage, description: string, tags: Record<string, string>): StoredKey {
    const keyId = randomUUID();
    const curve = CURVES[keySpec];
    const pair = curve ? generateEcKey(curve) : undefined;
    const key: StoredKey = {
      keyId,
      keySpec,
      keyUsage,
      state: 'Enabled',
      description,
      creationDate: Date.now() / 1000,
      tags,
      ...(pair ? { scalar: pair.d.toString('hex') } : {}),
    };
    this.keys.set(keyId, key);
    if (pair) this.material.set(keyId, pair);
    this.save();
    return key;
  }

  /** The key pair of an asymmetric key. */
  pair(key: StoredKey): EcKey | undefined {
    let pair = this.material.get(key.keyId);
    const curve = CURVES[key.keySpec];
    if (!pair && key.scalar && curve) {
      pair = ecKeyFromScalar(curve, Buffer.from(key.scalar, 'hex'));
      this.material.set(key.keyId, pair);
    }
    return pair;
  }

  /**
   * The key `keyIdOrName` names; aliases (`alias/…` and alias ARNs) only where the action takes them.
   * NotFoundException as AWS words it otherwise.
   */
  resolve(keyIdOrName: unknown, aliasesAllowed: boolean): StoredKey {
    if (typeof keyIdOrName !== 'string' || keyIdOrName.length === 0) {
      throw KmsErrors.validation(
        "1 validation error detected: Value null at 'keyId' failed to satisfy constraint: Member must not be null",
      );
    }
    if (keyIdOrName.length > 2048) {
      throw KmsErrors.validation(
        "1 validation error detected: Value at 'keyId' failed to satisfy constraint: Member must have length less than or equal to 2048",
      );
    }
    const aliasArn = /^arn:aws:kms:([^:]*):([^:]*):(alias\/.+)$/.exec(keyIdOrName);
    const aliasName = aliasArn ? aliasArn[3] : keyIdOrName.startsWith('alias/') ? keyIdOrName : undefined;
    if (aliasName !== undefined) {
      if (!aliasesAllowed) throw KmsErrors.notFound(`Invalid keyId '${keyIdOrName}'`);
      const alias =
        aliasArn && (aliasArn[1] !== this.region || aliasArn[2] !== this.accountId)
          ? undefined
          : this.aliases.get(aliasName);
      const key = alias ? this.keys.get(alias.targetKeyId) : undefined;
      if (!key) throw KmsErrors.notFound(`Alias ${this.aliasArn(aliasName)} is not found.`);
      return key;
    }
    const keyArn = /^arn:aws:kms:([^:]*):([^:]*):key\/(.+)$/.exec(keyIdOrName);
    const keyId = keyArn ? (keyArn[3] as string) : keyIdOrName;
    const key =
      keyArn && (keyArn[1] !== this.region || keyArn[2] !== this.accountId) ? undefined : this.keys.get(keyId);
    if (!key) {
      if (!keyArn && !/^[0-9a-f-]{36}$/i.test(keyId)) throw KmsErrors.notFound(`Invalid keyId '${keyIdOrName}'`);
      throw KmsErrors.notFound(`Key '${this.arn(keyId)}' does not exist`);
    }
    return key;
  }

  /** Refuses a key that cannot be used for cryptography now: disabled, or pending deletion. */
  usable(key: StoredKey): void {
    if (key.state === 'Disabled') throw KmsErrors.disabled(this.arn(key.keyId));
    if (key.state !== 'Enabled') throw KmsErrors.invalidState(this.arn(key.keyId), key.state);
  }

  save(): void {
    if (!this.statePath) return;
    const data: StoreData = { keys: [...this.keys.values()], aliases: [...this.aliases.values()] };
    writeFileSync(`${this.statePath}.tmp`, JSON.stringify(data), { mode: 0o600 });
    renameSync(`${this.statePath}.tmp`, this.statePath);
  }
}
