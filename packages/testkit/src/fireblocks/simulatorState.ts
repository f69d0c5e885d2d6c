import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import type { Hex } from 'viem';

export interface VaultRecord {
  id: string;
  name: string;
  hiddenOnUI: boolean;
  autoFuel: boolean;
  customerRefId?: string;
  /** Asset ids with a wallet in this vault account. */
  assets: string[];
}

/** One signed and sent version of a transaction (a speed-up adds another with the same nonce). */
export interface SentVersion {
  hash: Hex;
  /** The signed bytes, kept so that a restarted simulator can broadcast them again. */
  raw: Hex;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  sentAt: number;
}

export interface TransactionRecord {
  id: string;
  externalTxId?: string;
  status: string;
  subStatus: string;
  createdAt: number;
  lastUpdated: number;
  /** When the current status began (the `delays` clock). */
  statusSince: number;
  operation: string;
  assetId: string;
  vaultId: string;
  destinationAddress: Hex;
  data: Hex;
  /** Wei the transaction carries, a decimal string (the request's `amount`); absent in a state written before: 0. */
  value?: string;
  note: string;
  customerRefId?: string;
  createdBy: string;
  /** Wei, decimal strings; the gas limit as given or estimated. */
  gasLimit?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  feeLevel?: string;
  nonce?: number;
  versions: SentVersion[];
  /** The node took it (it reached CONFIRMING): only then does it show a hash, even once FAILED. */
  accepted?: boolean;
  /** The version found mined, once a receipt is seen. */
  minedHash?: Hex;
  blockNumber?: number;
  blockHash?: Hex;
  gasUsed?: string;
  effectiveGasPrice?: string;
  receiptStatus?: 'success' | 'reverted';
  numOfConfirmations: number;
  errorDescription?: string;
  approval: 'none' | 'required' | 'approved';
  /** Set by a fault when the transaction was created: how it ends before signing. */
  outcome?: 'blocked' | 'insufficientFunds';
  /** A replacement (a drop, or a create with `replaceTxByHash`): it is signed with the nonce of transaction `of`. */
  replacement?: { of: string; kind: 'drop' | 'replaceTxByHash' };
  /** For a replacement: the hash of the transaction it replaces (TransactionResponse.replacedTxHash). */
  replacedTxHash?: Hex;
  /** The replacements created for this transaction, oldest first. */
  replacedBy?: string[];
}

export interface SimulatorStateData {
  version: 1;
  /** 32 bytes: every vault account's key derives from it (simulated custody, local chains only). */
  seed: Hex;
  nextVaultId: number;
  vaults: VaultRecord[];
  transactions: TransactionRecord[];
  /** Next nonce per `chainId:address`, owned by the simulator as Fireblocks owns its vaults' nonces. */
  nonces: Record<string, number>;
  /**
   * Per `chainId:address`, nonces below the counter that were given to a transaction and released unused (it failed
   * before the node took it), lowest first: the next transactions take them before a fresh one. Absent in a state
   * written before they were kept.
   */
  releasedNonces?: Record<string, number[]>;
}

export function newState(): SimulatorStateData {
  return {
    version: 1,
    seed: `0x${randomBytes(32).toString('hex')}`,
    nextVaultId: 0,
    vaults: [],
    transactions: [],
    nonces: {},
    releasedNonces: {},
  };
}

/** Reads a state file; a missing one gives a fresh state. Refuses one larger than `maxBytes`. */
export function loadState(file: string | undefined, maxBytes: number): SimulatorStateData {
  if (!file || !existsSync(file)) return newState();
  const size = statSync(file).size;
  if (size > maxBytes) throw new Error(`Fireblocks simulator state ${file} is ${size} bytes, over ${maxBytes}`);
  const data = JSON.parse(readFileSync(file, 'utf8')) as SimulatorStateData;
  if (data.version !== 1 || !/^0x[0-9a-f]{64}$/.test(data.seed)) {
    throw new Error(`Fireblocks simulator state ${file} is not a version 1 state`);
  }
  return data;
}

/**
 * Writes the state atomically (temporary file, then rename), mode 0600 (it holds the keys' seed). Past `maxBytes`,
 * the oldest finished transactions are dropped from the file until it fits.
 */
export function saveState(file: string, state: SimulatorStateData, maxBytes: number): void {
  let json = JSON.stringify(state);
  if (json.length > maxBytes) {
    const finished = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'REJECTED', 'BLOCKED']);
    const kept = [...state.transactions];
    while (json.length > maxBytes && kept.some((t) => finished.has(t.status))) {
      kept.splice(
        kept.findIndex((t) => finished.has(t.status)),
        1,
      );
      json = JSON.stringify({ ...state, transactions: kept });
    }
    state.transactions = kept;
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, json, { mode: 0o600 });
  renameSync(temporary, file);
}
