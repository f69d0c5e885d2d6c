import { randomUUID } from 'node:crypto';
import { type Hex, keccak256, toHex } from 'viem';
import { AssetChains, type AssetConfig } from './assetChains.ts';
import { RpcError } from './evmRpc.ts';
import { NonceBook } from './nonceBook.ts';
import { linkReplacement, nonceLostSubStatus, replacementFees, sharesNonce } from './replacements.ts';
import { resolveFees } from './resolveFees.ts';
import type { SimulatorFaults } from './simulatorFaults.ts';
import type { SentVersion, SimulatorStateData, TransactionRecord } from './simulatorState.ts';
import { TransactionIndex } from './transactionIndex.ts';
import { VaultKeys } from './vaultKeys.ts';

/** A create request, validated (amount and fees in wei). */
export interface NewTransaction {
  /** TRANSFER (a plain value transfer, `data` empty) or CONTRACT_CALL. */
  operation: string;
  assetId: string;
  vaultId: string;
  destinationAddress: Hex;
  data: Hex;
  /** The request's `amount`, in wei: the value the transaction carries. */
  value: bigint;
  note: string;
  externalTxId?: string;
  customerRefId?: string;
  gasLimit?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  feeLevel?: string;
  /** A replacement (see replacements.ts): signed with `original`'s nonce, not queued behind it. */
  replaces?: { original: TransactionRecord; kind: 'drop' | 'replaceTxByHash' };
}

/** The gas of a plain value transfer, the limit a TRANSFER is signed with unless `gasLimit` is given. */
const TRANSFER_GAS = 21_000n;
/** How long a transaction priced below the base fee waits before it is sent again: about a block. */
const BASE_FEE_RETRY_MS = 1_000;
/** A CONFIRMING transaction is looked at again when the head moves, or after this long (a drop, a reorg to the same height). */
const RECHECK_MS = 1_000;
/**
 * For this long after it is sent, a transaction's receipt is looked for on every tick, head moved or not: on an
 * automining node the block comes a few milliseconds after the send, and waiting for the next head read would hold
 * the vault account's queue for a tick or two each time.
 */
const FRESH_MS = 500;

/** Statuses after which nothing changes (TransactionStatus in the API reference). */
export const FINAL_STATUSES = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'REJECTED', 'BLOCKED']);
/** A sent transaction missing from both the chain and the node's pool for this long is broadcast again. */
const REBROADCAST_AFTER_MS = 2_000;
/**
 * How long a sent transaction must stay unknown to the node, with the account's mined nonce past its own, before it
 * ends FAILED / DROPPED_BY_BLOCKCHAIN: a reorg can take the other transaction back out in the meantime.
 */
const NONCE_TAKEN_FOR_MS = 2_000;
/** A transaction of a vault account and asset "being processed": the others of that pair wait QUEUED. */
const IN_FLIGHT = new Set(['PENDING_SIGNATURE', 'BROADCASTING', 'CONFIRMING']);
const CANCELLABLE = new Set([
  'SUBMITTED',
  'PENDING_AML_SCREENING',
  'PENDING_AUTHORIZATION',
  'QUEUED',
  'PENDING_SIGNATURE',
]);

/** The version sent last. */
function latest(tx: TransactionRecord): SentVersion {
  const version = tx.versions[tx.versions.length - 1];
  if (!version) throw new Error(`transaction ${tx.id} was never signed`);
  return version;
}

export interface EngineOptions {
  assets: Record<string, AssetConfig>;
  delays: Partial<Record<string, number>>;
  confirmations: number;
  parallelPerVaultAsset: boolean;
  faults: SimulatorFaults;
  state: SimulatorStateData;
  /** Called after every change of a transaction; `created` for its first. */
  onChange(tx: TransactionRecord, created: boolean): void;
  pollMs?: number;
}

/**
 * Moves transactions through Fireblocks' statuses in its order (reference "Primary transaction statuses"):
 * SUBMITTED → PENDING_AML_SCREENING (only when its delay is configured, as only AML-enabled workspaces have it) →
 * PENDING_AUTHORIZATION (when approval is required) → QUEUED → PENDING_SIGNATURE → BROADCASTING → CONFIRMING →
 * COMPLETED, each held for its configured delay. Signing and broadcasting are real: an EIP-1559 transaction with the
 * nonce the simulator assigns, carrying the request's amount as its value, signed with the vault account's key and
 * sent to the asset's chain.
 */
export class TransactionEngine {
  private readonly busy = new Set<string>();
  /** The vault accounts' keys, which sign. */
  readonly keys: VaultKeys;
  /** The assets' chains, to which the signed transactions are sent. */
  readonly chains: AssetChains;
  private readonly nonceBook: NonceBook;
  /** When a sent transaction was first seen with its nonce used on chain by another (see confirmStep). */
  private readonly nonceTakenSince = new Map<string, number>();
  /** The head at which a CONFIRMING transaction was last looked at, and when (see confirmStep). */
  private readonly lookedAt = new Map<string, { head: number; at: number }>();
  /** Transactions whose fee cap is below the base fee: sent again from this time on (see broadcastStep). */
  private readonly broadcastAfter = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private ticking = false;
  private readonly index = new TransactionIndex((status) => FINAL_STATUSES.has(status));

  constructor(private readonly options: EngineOptions) {
    this.keys = new VaultKeys(options.state.seed);
    this.chains = new AssetChains(options.assets);
    this.nonceBook = new NonceBook(options.state);
    for (const tx of options.state.transactions) this.index.add(tx);
    this.timer = setInterval(() => this.tick(), options.pollMs ?? 25);
    this.timer.unref();
  }

  create(input: NewTransaction, createdBy: string): TransactionRecord {
    const now = Date.now();
    const faults = this.options.faults.current;
    const tx: TransactionRecord = {
      id: randomUUID(),
      externalTxId: input.externalTxId,
      status: 'SUBMITTED',
      subStatus: '',
      createdAt: now,
      lastUpdated: now,
      statusSince: now,
      operation: input.operation,
      assetId: input.assetId,
      vaultId: input.vaultId,
      destinationAddress: input.destinationAddress,
      data: input.data,
      value: input.value.toString(),
      note: input.note,
      customerRefId: input.customerRefId,
      createdBy,
      gasLimit: input.gasLimit?.toString(),
      maxFeePerGas: input.maxFeePerGas?.toString(),
      maxPriorityFeePerGas: input.maxPriorityFeePerGas?.toString(),
      feeLevel: input.feeLevel,
      versions: [],
      accepted: false,
      numOfConfirmations: 0,
      approval: faults.approvalRequired ? 'required' : 'none',
      outcome: faults.policyBlock ? 'blocked' : faults.insufficientFunds ? 'insufficientFunds' : undefined,
    };
    if (input.replaces) linkReplacement(tx, input.replaces);
    this.options.state.transactions.push(tx);
    this.index.add(tx);
    this.options.onChange(tx, true);
    // After the answer: Fireblocks answers a create at once (SUBMITTED) and works on it after.
    setImmediate(() => this.tick());
    return tx;
  }

  find(id: string): TransactionRecord | undefined {
    return this.index.find(id);
  }

  findByExternalTxId(externalTxId: string): TransactionRecord | undefined {
    return this.index.findByExternalTxId(externalTxId);
  }

  approve(id: string): void {
    const tx = this.must(id, 'PENDING_AUTHORIZATION');
    tx.approval = 'approved';
    this.tick();
  }

  reject(id: string): void {
    this.setStatus(this.must(id, 'PENDING_AUTHORIZATION'), 'REJECTED', 'REJECTED_BY_USER');
  }

  /** `POST /transactions/{id}/cancel`: only before it is signed and broadcast ("did not get to BROADCASTING"). */
  cancel(id: string): boolean {
    const tx = this.find(id);
    if (!tx || !CANCELLABLE.has(tx.status) || this.busy.has(tx.id)) return false;
    this.setStatus(tx, 'CANCELLING', '');
    this.setStatus(tx, 'CANCELLED', 'CANCELLED_BY_USER');
    return true;
  }

  /** A speed-up: the same nonce signed again with fees 25% higher (above geth's 10% bump), sent, its hash reported. */
  async replaceHash(id: string): Promise<Hex> {
    const tx = this.find(id);
    if (!tx || tx.status !== 'CONFIRMING' || tx.minedHash || tx.nonce === undefined) {
      throw new Error(`transaction ${id} is not waiting unmined in CONFIRMING (${tx?.status ?? 'unknown'})`);
    }
    const last = latest(tx);
    const bump = (wei: string) => (BigInt(wei) * 125n) / 100n + 1n;
    const version = await this.sign(tx, tx.nonce, bump(last.maxFeePerGas), bump(last.maxPriorityFeePerGas));
    await this.chains.rpc(tx.assetId).sendRaw(version.raw);
    tx.versions.push(version);
    this.touch(tx);
    return version.hash;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private chainId(tx: TransactionRecord): number {
    return this.chains.chainId(tx.assetId);
  }

  private must(id: string, status: string): TransactionRecord {
    const tx = this.find(id);
    if (!tx || tx.status !== status) throw new Error(`transaction ${id} is not ${status} (${tx?.status ?? 'unknown'})`);
    return tx;
  }

  private touch(tx: TransactionRecord): void {
    tx.lastUpdated = Date.now();
    this.options.onChange(tx, false);
  }

  private setStatus(tx: TransactionRecord, status: string, subStatus: string): void {
    if (tx.status === status && tx.subStatus === subStatus) return;
    if (FINAL_STATUSES.has(status)) {
      this.lookedAt.delete(tx.id);
      // The next of its vault account and asset goes at once, not at the next tick.
      if (this.index.finished(tx)) setImmediate(() => this.tick());
    }
    const now = Date.now();
    if (tx.status !== status) tx.statusSince = now;
    tx.status = status;
    tx.subStatus = subStatus;
    tx.lastUpdated = now;
    this.options.onChange(tx, false);
  }

  private tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const tx of this.index.unfinished()) {
        if (this.busy.has(tx.id)) continue;
        this.busy.add(tx.id);
        this.advance(tx)
          .catch(() => undefined)
          .finally(() => this.busy.delete(tx.id));
      }
    } finally {
      this.ticking = false;
    }
  }

  /** Takes `tx` through every step whose delay has passed; stops at one that must wait. */
  private async advance(tx: TransactionRecord): Promise<void> {
    for (let steps = 0; steps < 12 && !FINAL_STATUSES.has(tx.status); steps++) {
      const delay = this.options.delays[tx.status] ?? 0;
      if (Date.now() - tx.statusSince < delay && tx.status !== 'CONFIRMING') return;
      const before = `${tx.status}/${tx.subStatus}/${tx.numOfConfirmations}`;
      await this.step(tx);
      if (`${tx.status}/${tx.subStatus}/${tx.numOfConfirmations}` === before) return;
    }
  }

  private async step(tx: TransactionRecord): Promise<void> {
    const afterScreening = () =>
      tx.approval === 'required' ? this.setStatus(tx, 'PENDING_AUTHORIZATION', '') : this.setStatus(tx, 'QUEUED', '');
    switch (tx.status) {
      case 'SUBMITTED':
        if (tx.outcome === 'blocked') return this.setStatus(tx, 'BLOCKED', 'BLOCKED_BY_POLICY');
        if (tx.outcome === 'insufficientFunds') return this.setStatus(tx, 'FAILED', 'INSUFFICIENT_FUNDS');
        if (this.options.delays.PENDING_AML_SCREENING !== undefined)
          return this.setStatus(tx, 'PENDING_AML_SCREENING', '');
        return afterScreening();
      case 'PENDING_AML_SCREENING':
        return afterScreening();
      case 'PENDING_AUTHORIZATION':
        if (tx.approval === 'approved') this.setStatus(tx, 'QUEUED', '');
        return;
      case 'QUEUED':
        // A replacement does not wait for the transaction it replaces, which stays in flight until one is mined.
        if (!tx.replacement && !this.options.parallelPerVaultAsset && !this.index.firstInLine(tx, IN_FLIGHT)) return;
        return this.setStatus(tx, 'PENDING_SIGNATURE', '');
      case 'PENDING_SIGNATURE':
        return this.signStep(tx);
      case 'BROADCASTING':
        return this.broadcastStep(tx);
      case 'CONFIRMING':
        return this.confirmStep(tx);
      case 'CANCELLING':
        return this.setStatus(tx, 'CANCELLED', 'CANCELLED_BY_USER');
    }
  }

  /**
   * Prices and signs `tx` with the next nonce of its vault account, unless the account cannot pay for it. Fireblocks
   * accepts such a create and fails the transaction before signing (TransactionSubStatus: INSUFFICIENT_FUNDS, "Not
   * enough funds to fulfill the withdraw request"; INSUFFICIENT_FUNDS_FOR_FEE, "Not enough balance to fund the
   * requested transaction"): here, one carrying value ends FAILED / INSUFFICIENT_FUNDS when the balance is below its
   * amount plus the most it may pay in fees (gas limit × max fee per gas), one carrying none FAILED /
   * INSUFFICIENT_FUNDS_FOR_FEE when the balance is below that fee. The balance is the chain's latest, read when the
   * transaction leaves the queue: the vault's earlier transactions are mined by then unless `parallelPerVaultAsset`.
   */
  private async signStep(tx: TransactionRecord): Promise<void> {
    const rpc = this.chains.rpc(tx.assetId);
    const from = this.keys.account(tx.vaultId).address;
    const value = BigInt(tx.value ?? '0');
    const shortOfFunds = () =>
      this.setStatus(tx, 'FAILED', value > 0n ? 'INSUFFICIENT_FUNDS' : 'INSUFFICIENT_FUNDS_FOR_FEE');
    let gas = tx.gasLimit ? BigInt(tx.gasLimit) : tx.operation === 'TRANSFER' ? TRANSFER_GAS : undefined;
    if (gas === undefined) {
      // The node cannot estimate a call carrying more than the account holds.
      if (value > 0n && (await rpc.balance(from)) < value) return shortOfFunds();
      try {
        // A replacement runs in place of the transaction it replaces, which the node's pending state (anvil's default
        // for an estimate) already holds: estimated over that state, a call the original already made is priced
        // lower (an increment of a counter it raised) and runs out of gas on chain. Hence the mined state.
        const call = { from, to: tx.destinationAddress, data: tx.data, value: toHex(value) };
        const estimate = await rpc.estimateGas(call, tx.replacement ? 'latest' : undefined);
        gas = (estimate * 12n) / 10n;
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        if (/insufficient funds/i.test(error.message)) return shortOfFunds();
        tx.errorDescription = error.message;
        return this.setStatus(tx, 'FAILED', 'SMART_CONTRACT_EXECUTION_FAILED');
      }
    }
    tx.gasLimit = gas.toString();
    const fees = await replacementFees(tx, await resolveFees(rpc, tx), (id) => this.find(id), rpc);
    if ((await rpc.balance(from)) < value + gas * fees.maxFeePerGas) return shortOfFunds();
    const nonce =
      tx.replacement && tx.nonce !== undefined
        ? tx.nonce
        : await this.nonceBook.take(this.nonceKey(tx), () => this.chains.rpc(tx.assetId).pendingNonce(from));
    tx.nonce = nonce;
    try {
      tx.versions.push(await this.sign(tx, nonce, fees.maxFeePerGas, fees.maxPriorityFeePerGas));
    } catch (error) {
      // Signed again on a later tick, with a nonce taken then (a replacement keeps the one it replaces).
      if (!tx.replacement) {
        this.releaseNonce(tx);
        tx.nonce = undefined;
      }
      throw error;
    }
    this.setStatus(tx, 'BROADCASTING', '');
  }

  private async sign(tx: TransactionRecord, nonce: number, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) {
    const raw = await this.keys.account(tx.vaultId).signTransaction({
      type: 'eip1559',
      chainId: this.chainId(tx),
      nonce,
      to: tx.destinationAddress,
      data: tx.data,
      value: BigInt(tx.value ?? '0'),
      gas: BigInt(tx.gasLimit as string),
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return {
      hash: keccak256(raw),
      raw,
      maxFeePerGas: maxFeePerGas.toString(),
      maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
      sentAt: Date.now(),
    };
  }

  private nonceKey(tx: TransactionRecord): string {
    return `${this.chainId(tx)}:${this.keys.account(tx.vaultId).address.toLowerCase()}`;
  }

  /** Gives `tx`'s nonce back to the book: the node never took it (nor, when it shares it, the other transaction). */
  private releaseNonce(tx: TransactionRecord): void {
    if (tx.nonce !== undefined && !sharesNonce(tx)) this.nonceBook.release(this.nonceKey(tx), tx.nonce);
  }

  /** Whether the node knows any signed version of `tx` (in its pool or in a block), or holds a receipt of one. */
  private async knownToNode(tx: TransactionRecord): Promise<boolean> {
    const rpc = this.chains.rpc(tx.assetId);
    for (const version of tx.versions) {
      if ((await rpc.knows(version.hash)) || (await rpc.receipt(version.hash))) return true;
    }
    return false;
  }

  /**
   * Sends the signed transaction. The node's refusals (Fireblocks' REJECTED_BY_BLOCKCHAIN: "rejected by the blockchain
   * due to too low fees, bad inputs or bad nonce"):
   * - "already known": sent before (a restart); it waits in CONFIRMING;
   * - "nonce too low": sent before and mined, when the node knows its hash; otherwise another transaction of the
   *   address has that nonce on chain, and this one can never be mined: FAILED, its nonce not released;
   * - "replacement transaction underpriced": another transaction holds the nonce in the node's pool: FAILED, the
   *   nonce not released (it is that transaction's);
   * - "max fee per gas less than block base fee" (anvil's refusal of what geth's pool would keep until the base fee
   *   falls): it stays BROADCASTING and is sent again a block later, as a network's pool would hold it;
   * - any other: the node did not take it: FAILED, its nonce released for the next transaction.
   */
  private async broadcastStep(tx: TransactionRecord): Promise<void> {
    if (Date.now() < (this.broadcastAfter.get(tx.id) ?? 0)) return;
    this.broadcastAfter.delete(tx.id);
    const version = latest(tx);
    try {
      await this.chains.rpc(tx.assetId).sendRaw(version.raw);
    } catch (error) {
      // Unreachable node: stay BROADCASTING and send again on a later tick, as Fireblocks keeps broadcasting.
      if (!(error instanceof RpcError)) return;
      const shared = sharesNonce(tx);
      // One sharing its nonce waits while the other holds the pool's slot, and fails once the other is mined.
      const waits =
        /less than (the )?block base fee/i.test(error.message) || (shared && /underpriced/i.test(error.message));
      const rpc = this.chains.rpc(tx.assetId);
      const lost = waits && shared && (await rpc.minedNonce(this.keys.account(tx.vaultId).address)) > (tx.nonce ?? 0);
      if (waits && !lost) {
        this.broadcastAfter.set(tx.id, Date.now() + BASE_FEE_RETRY_MS);
        return;
      }
      if ((lost || /nonce too low/i.test(error.message)) && !(await this.knownToNode(tx))) {
        tx.errorDescription = `${error.message} (nonce ${tx.nonce} is another transaction's on chain)`;
        return this.setStatus(tx, 'FAILED', nonceLostSubStatus(tx));
      }
      if (!/already known|already imported|nonce too low/i.test(error.message)) {
        if (!/underpriced/i.test(error.message)) this.releaseNonce(tx);
        tx.errorDescription = error.message;
        return this.setStatus(tx, 'FAILED', 'REJECTED_BY_BLOCKCHAIN');
      }
    }
    tx.accepted = true;
    this.setStatus(tx, 'CONFIRMING', 'PENDING_BLOCKCHAIN_CONFIRMATIONS');
  }

  /**
   * Whether `tx`'s nonce is another transaction's on chain: none of its versions known to the node, and the account's
   * mined nonce past its own, on two looks at least NONCE_TAKEN_FOR_MS apart.
   */
  private async nonceTaken(tx: TransactionRecord): Promise<boolean> {
    const rpc = this.chains.rpc(tx.assetId);
    const mined = await rpc.minedNonce(this.keys.account(tx.vaultId).address);
    // Read before asking for the hashes: a version mined in between is known by then.
    if (tx.nonce === undefined || mined <= tx.nonce || (await this.knownToNode(tx))) {
      this.nonceTakenSince.delete(tx.id);
      return false;
    }
    const since = this.nonceTakenSince.get(tx.id) ?? Date.now();
    this.nonceTakenSince.set(tx.id, since);
    return Date.now() - since >= NONCE_TAKEN_FOR_MS;
  }

  /**
   * Looks for a receipt of any sent version; COMPLETED once the receipt's block has `confirmations` blocks counting
   * itself. A receipt with status 0 ends FAILED / SMART_CONTRACT_EXECUTION_FAILED, with `errorDescription` (the
   * TransactionResponse model: "The transaction's revert reason … returned when subStatus = SMART_CONTRACT_EXECUTION_FAILED").
   */
  private async confirmStep(tx: TransactionRecord): Promise<void> {
    const rpc = this.chains.rpc(tx.assetId);
    // Once per block, not once per tick: hundreds of transactions waiting for blocks must not flood the node.
    const head = await this.chains.head(tx.assetId);
    const last = this.lookedAt.get(tx.id);
    const fresh = Date.now() - latest(tx).sentAt < FRESH_MS;
    if (last && last.head === head && Date.now() - last.at < RECHECK_MS && !fresh) return;
    this.lookedAt.set(tx.id, { head, at: Date.now() });
    let found = false;
    for (const version of [...tx.versions].reverse()) {
      const receipt = await rpc.receipt(version.hash);
      if (!receipt) continue;
      found = true;
      tx.minedHash = version.hash;
      tx.blockNumber = Number(receipt.blockNumber);
      tx.blockHash = receipt.blockHash;
      tx.gasUsed = BigInt(receipt.gasUsed).toString();
      tx.effectiveGasPrice = BigInt(receipt.effectiveGasPrice).toString();
      tx.receiptStatus = receipt.status === '0x1' ? 'success' : 'reverted';
      break;
    }
    if (!found) {
      // Not mined, or no longer (a reorg): wait on. A signed transaction that neither a block nor the node's pool
      // holds any more (dropped from the pool, or its block reorganised away) is broadcast again, as a custodian
      // keeps its pending transaction in the network: its nonce is taken, so the vault's later ones wait for it.
      // Unless the chain has used its nonce for another transaction: then it can never be mined, and it ends
      // FAILED / DROPPED_BY_BLOCKCHAIN (Fireblocks: "replaced by another transaction").
      tx.minedHash = tx.blockNumber = tx.blockHash = tx.receiptStatus = undefined;
      tx.numOfConfirmations = 0;
      const version = latest(tx);
      if (Date.now() - version.sentAt >= REBROADCAST_AFTER_MS && !(await rpc.knows(version.hash))) {
        if (await this.nonceTaken(tx)) {
          this.nonceTakenSince.delete(tx.id);
          tx.errorDescription = `nonce ${tx.nonce} was used on chain by another transaction`;
          return this.setStatus(tx, 'FAILED', 'DROPPED_BY_BLOCKCHAIN');
        }
        version.sentAt = Date.now();
        await rpc.sendRaw(version.raw).catch(() => undefined);
      }
      return;
    }
    this.nonceTakenSince.delete(tx.id);
    const confirmations = Math.max(head, tx.blockNumber as number) - (tx.blockNumber as number) + 1;
    if (confirmations !== tx.numOfConfirmations) {
      tx.numOfConfirmations = confirmations;
      this.touch(tx);
    }
    const held = Date.now() - tx.statusSince >= (this.options.delays.CONFIRMING ?? 0);
    if (confirmations < this.options.confirmations || !held) return;
    if (tx.receiptStatus === 'success') return this.setStatus(tx, 'COMPLETED', 'CONFIRMED');
    tx.errorDescription = 'execution reverted';
    this.setStatus(tx, 'FAILED', 'SMART_CONTRACT_EXECUTION_FAILED');
  }
}
