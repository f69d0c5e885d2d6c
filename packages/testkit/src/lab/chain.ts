import { type Address, type Hex, keccak256, parseTransaction } from 'viem';
import { type AnvilHandle, startAnvil } from '../anvil.ts';
import { RpcCallError, rpcBatch, rpcCall, toQuantity } from '../jsonRpc.ts';
import { freePort } from '../ports.ts';
import { LabError, rejectUnknownOptions } from './errors.ts';
import { type PoolContent, readPool } from './pool.ts';

export interface LabChainOptions {
  /** Loopback port; a free one unless given. It stays the same across `restartWithoutState()`. */
  port?: number;
  /** Interval mining: a block every so many seconds, sub-second allowed (anvil `--block-time`). Default 1. */
  blockTimeSeconds?: number;
  /** Block gas limit (anvil `--gas-limit`). Default 30,000,000, as on Ethereum mainnet. */
  gasLimit?: number | bigint;
  /** Finality: `safe` is this many blocks behind the head and `finalized` twice as many (anvil `--slots-in-an-epoch`). Default 4. */
  slotsInAnEpoch?: number;
  /** Default 1337. */
  chainId?: number;
  /** Base fee of the first block (anvil `--base-fee`); anvil's default (1 gwei) unless given. */
  baseFeePerGas?: bigint;
}

const OPTIONS = ['port', 'blockTimeSeconds', 'gasLimit', 'slotsInAnEpoch', 'chainId', 'baseFeePerGas'] as const;

export type BlockTag = 'latest' | 'safe' | 'finalized' | 'earliest' | 'pending';

export interface BlockSummary {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  timestamp: bigint;
  baseFeePerGas: bigint;
  gasLimit: bigint;
  transactions: Hex[];
}

/** A transaction anvil signs itself with one of its development accounts (`from` must be one): it gets a new hash. */
export interface LabTransactionRequest {
  from: Address;
  to?: Address | null;
  value?: bigint;
  data?: Hex;
  nonce?: number;
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** A transaction of the new branch: signed bytes (kept under their own hash) or a request anvil signs. */
export interface Replacement {
  tx: Hex | LabTransactionRequest;
  /** 0 is the first block of the new branch (the one right after the fork point), up to `depth − 1`. */
  blockOffset: number;
}

export interface ReorgOptions {
  replacements?: readonly Replacement[];
  /**
   * What becomes of the removed blocks' transactions. `'none'` (default): they are gone, as anvil leaves them (it
   * does not return them to its pool). `'removed'`: each is included again, under its hash, at the same offset in the
   * new branch. Raw signed transactions: these are included in the new branch's first block.
   */
  reinclude?: 'none' | 'removed' | readonly Hex[];
}

export interface ReorgResult {
  /** The last block both branches share. */
  forkPoint: bigint;
  removed: BlockSummary[];
  added: BlockSummary[];
  /** Transactions of the removed blocks that the new branch does not include: no receipt, not in the pool. */
  dropped: Hex[];
  /** Transactions included again under their own hash (removed ones, or raw ones given). */
  reincluded: Hex[];
  /** Raw transactions given for the new branch that anvil left out because they did not apply (a nonce that does not fit). */
  skipped: Hex[];
}

export interface LabChain {
  readonly url: string;
  readonly port: number;
  readonly chainId: number;
  /** PID of the current anvil process (it changes with `restartWithoutState()`). */
  readonly pid: number;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  head(): Promise<bigint>;
  safe(): Promise<bigint>;
  finalized(): Promise<bigint>;
  block(at: bigint | number | BlockTag): Promise<BlockSummary | null>;
  blockHash(n: bigint | number): Promise<Hex | null>;
  /** Mines `blocks` blocks now (default 1), whatever the interval; resolves with the new head. */
  mineNow(blocks?: number): Promise<bigint>;
  /** Stops interval mining: transactions stay in the pool until `resumeMining()` or `mineNow()`. */
  pauseMining(): Promise<void>;
  resumeMining(): Promise<void>;
  /**
   * Replaces the last `depth` blocks with a new branch of the same length (anvil_reorg), produced by another fee
   * recipient, so that every block of it is new even where it holds the same transactions.
   */
  reorg(depth: number, options?: ReorgOptions): Promise<ReorgResult>;
  /** Removes the last `depth` blocks (anvil_rollback): the head goes back; their transactions are gone. */
  rollback(depth: number): Promise<{ removed: BlockSummary[]; dropped: Hex[] }>;
  /**
   * Sets the next block's base fee to the latest block's × `multiplier`, or `floor` × `multiplier` when the latest is
   * below `floor` (a chain of nearly empty blocks has a base fee near zero, where a spike prices nothing out).
   */
  spikeBaseFee(multiplier: number, options?: { floor?: bigint }): Promise<{ from: bigint; to: bigint }>;
  setNextBaseFee(wei: bigint): Promise<void>;
  /** Removes a transaction from anvil's pool, and with it the sender's later ones that depended on it. */
  dropTransaction(hash: Hex): Promise<boolean>;
  dropAll(): Promise<void>;
  pool(): Promise<PoolContent>;
  /** Stops anvil and starts a fresh chain on the same port: every block, balance change and pooled transaction is gone. */
  restartWithoutState(): Promise<void>;
  stop(): Promise<void>;
}

type RpcBlock = {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  baseFeePerGas?: Hex;
  gasLimit: Hex;
  transactions: Hex[];
};

function positiveInteger(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new LabError(`${what} must be a positive integer, not ${value}`);
  return value;
}

/**
 * Starts a chain for conditions automine never shows: anvil on loopback with interval mining, a real block gas limit
 * and finality tags that move, with helpers that reorganise it, spike its base fee, drop pooled transactions and
 * reset it. Stopped by PID.
 */
export async function startLabChain(options: LabChainOptions = {}): Promise<LabChain> {
  rejectUnknownOptions('startLabChain', options, OPTIONS);
  const blockTime = options.blockTimeSeconds ?? 1;
  if (!(blockTime > 0) || !Number.isFinite(blockTime))
    throw new LabError(`blockTimeSeconds must be > 0, not ${blockTime}`);
  const slots = positiveInteger('slotsInAnEpoch', options.slotsInAnEpoch ?? 4);
  const chainId = options.chainId ?? 1337;
  const port = options.port ?? (await freePort());
  const args = ['--gas-limit', String(options.gasLimit ?? 30_000_000), '--slots-in-an-epoch', String(slots)];
  if (options.baseFeePerGas !== undefined) args.push('--base-fee', String(options.baseFeePerGas));

  const launch = async (): Promise<AnvilHandle> => {
    // Right after a stop the port can take a moment to be free again.
    for (let attempt = 0; ; attempt++) {
      try {
        return await startAnvil({ port, chainId, blockTime, args });
      } catch (error) {
        if (attempt >= 20) throw new LabError(`anvil did not start on port ${port}`, { cause: error });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  let anvil = await launch();
  const url = anvil.url;
  // A test that dies without stopping its chain must not leave anvil behind.
  const killOnExit = () => {
    try {
      process.kill(anvil.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killOnExit);

  /** Every call to anvil goes through here: when anvil has died meanwhile, the error says how (exit, last output). */
  const reporting = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      // Only a call anvil did not answer (no JSON-RPC code) may mean it died; one refused by a dead anvil can fail
      // before its end is reported, so that gets a moment.
      if (!(error instanceof RpcCallError) || error.code !== undefined) throw error;
      await Promise.race([anvil.exited, new Promise((r) => setTimeout(r, 250).unref())]);
      const died = anvil.died();
      if (died) throw new LabError(`${method}: ${died}`, { cause: error });
      throw error;
    }
  };
  const rpc = <T = unknown>(method: string, params: unknown[] = []) =>
    reporting(method, () => rpcCall<T>(url, method, params));

  // Mining. anvil takes a new interval over RPC only in whole seconds (evm_setIntervalMining is a u64), so a
  // sub-second interval, once paused, is resumed by mining from here at the same cadence.
  let paused = false;
  /** Reorgs so far: each new branch's producer (fee recipient) is BRANCH_PRODUCERS + this count. */
  let branches = 0;
  let ticker: NodeJS.Timeout | undefined;
  let tick: Promise<unknown> | undefined;
  const stopMining = async () => {
    clearInterval(ticker);
    ticker = undefined;
    await tick;
    await rpc('evm_setIntervalMining', [0]);
  };
  const startMining = async () => {
    if (Number.isInteger(blockTime)) {
      await rpc('evm_setIntervalMining', [blockTime]);
      return;
    }
    ticker = setInterval(() => {
      tick = rpc('evm_mine').catch(() => undefined);
    }, blockTime * 1000);
    ticker.unref();
  };
  /** Runs `fn` with no block mined meanwhile, so that what it reads before and after describes one change. */
  const held = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (paused) return fn();
    await stopMining();
    try {
      return await fn();
    } finally {
      await startMining();
    }
  };

  const block = async (at: bigint | number | BlockTag): Promise<BlockSummary | null> => {
    const tag = typeof at === 'string' ? at : toQuantity(at);
    const raw = await rpc<RpcBlock | null>('eth_getBlockByNumber', [tag, false]);
    if (!raw) return null;
    return {
      number: BigInt(raw.number),
      hash: raw.hash,
      parentHash: raw.parentHash,
      timestamp: BigInt(raw.timestamp),
      baseFeePerGas: BigInt(raw.baseFeePerGas ?? 0),
      gasLimit: BigInt(raw.gasLimit),
      transactions: raw.transactions,
    };
  };
  const head = async () => BigInt(await rpc<Hex>('eth_blockNumber'));
  const blocksFrom = async (first: bigint, last: bigint) => {
    const out: BlockSummary[] = [];
    for (let n = first; n <= last; n++) {
      const b = await block(n);
      if (!b) throw new LabError(`block ${n} is missing`);
      out.push(b);
    }
    return out;
  };
  const checkDepth = async (depth: number) => {
    positiveInteger('depth', depth);
    const current = await head();
    if (BigInt(depth) > current) throw new LabError(`depth ${depth} is more than the chain's height ${current}`);
    return current;
  };

  const handle: LabChain = {
    url,
    port,
    chainId,
    get pid() {
      return anvil.pid;
    },
    rpc,
    head,
    safe: async () => (await block('safe'))?.number ?? 0n,
    finalized: async () => (await block('finalized'))?.number ?? 0n,
    block,
    blockHash: async (n) => (await block(n))?.hash ?? null,
    async mineNow(blocks = 1) {
      await rpc('anvil_mine', [toQuantity(positiveInteger('blocks', blocks))]);
      return head();
    },
    async pauseMining() {
      if (paused) return;
      await stopMining();
      paused = true;
    },
    async resumeMining() {
      if (!paused) return;
      paused = false;
      await startMining();
    },
    reorg: (depth, reorgOptions = {}) =>
      held(async () => {
        rejectUnknownOptions('reorg', reorgOptions, ['replacements', 'reinclude']);
        const current = await checkDepth(depth);
        const forkPoint = current - BigInt(depth);
        const removed = await blocksFrom(forkPoint + 1n, current);
        const entries: { tx: Hex | Record<string, unknown>; blockOffset: number; nonce: number }[] = [];
        const rawGiven: Hex[] = [];
        const addRaw = (raw: Hex, blockOffset: number) => {
          entries.push({ tx: raw, blockOffset, nonce: parseTransaction(raw).nonce ?? 0 });
          rawGiven.push(keccak256(raw));
        };
        for (const { tx, blockOffset } of reorgOptions.replacements ?? []) {
          if (!Number.isSafeInteger(blockOffset) || blockOffset < 0 || blockOffset >= depth) {
            throw new LabError(`blockOffset ${blockOffset} is outside the new branch (0 to ${depth - 1})`);
          }
          if (typeof tx === 'string') addRaw(tx, blockOffset);
          else entries.push({ tx: requestParams(tx), blockOffset, nonce: tx.nonce ?? Number.MAX_SAFE_INTEGER });
        }
        const reinclude = reorgOptions.reinclude ?? 'none';
        if (reinclude === 'removed') {
          // One batch for every removed transaction: the chain does not move while they are read.
          const placed = removed.flatMap((b, offset) => b.transactions.map((hash) => ({ hash, offset })));
          const raws = await reporting('eth_getRawTransactionByHash', () =>
            rpcBatch<Hex>(
              url,
              'eth_getRawTransactionByHash',
              placed.map((p) => [p.hash]),
            ),
          );
          for (const [i, p] of placed.entries()) addRaw(raws[i] as Hex, p.offset);
        } else if (Array.isArray(reinclude)) {
          for (const raw of reinclude) addRaw(raw, 0);
        } else if (reinclude !== 'none') {
          throw new LabError(`reinclude must be 'none', 'removed' or raw transactions, not ${String(reinclude)}`);
        }
        // anvil applies a block's transactions in the order given and silently leaves out one whose nonce does not
        // fit yet, so each sender's transactions go in nonce order.
        entries.sort((a, b) => a.blockOffset - b.blockOffset || a.nonce - b.nonce);
        // A competing branch is another block producer's. anvil would otherwise rebuild blocks from the same parent,
        // transactions, timestamps and base fee (at its floor, on a chain of empty blocks) byte for byte: the same
        // hashes, a reorg nobody watching the chain could see. Each branch gets a fee recipient of its own.
        const coinbase = await rpc<Hex>('eth_coinbase');
        branches += 1;
        await rpc('anvil_setCoinbase', [`0x${(BRANCH_PRODUCERS + branches).toString(16).padStart(40, '0')}`]);
        try {
          await rpc('anvil_reorg', [depth, entries.map((e) => [e.tx, e.blockOffset])]);
        } finally {
          await rpc('anvil_setCoinbase', [coinbase]);
        }
        const added = await blocksFrom(forkPoint + 1n, forkPoint + BigInt(depth));
        if (added.some((b, i) => b.hash === removed[i]?.hash)) {
          throw new LabError(`the new branch repeats a removed block: no reorg happened at depth ${depth}`);
        }
        const inNewBranch = new Set(added.flatMap((b) => b.transactions));
        const removedTxs = removed.flatMap((b) => b.transactions);
        return {
          forkPoint,
          removed,
          added,
          dropped: removedTxs.filter((h) => !inNewBranch.has(h)),
          reincluded: [...new Set([...removedTxs, ...rawGiven])].filter((h) => inNewBranch.has(h)),
          skipped: rawGiven.filter((h) => !inNewBranch.has(h)),
        };
      }),
    rollback: (depth) =>
      held(async () => {
        const current = await checkDepth(depth);
        const removed = await blocksFrom(current - BigInt(depth) + 1n, current);
        await rpc('anvil_rollback', [depth]);
        return { removed, dropped: removed.flatMap((b) => b.transactions) };
      }),
    async spikeBaseFee(multiplier, spikeOptions = {}) {
      rejectUnknownOptions('spikeBaseFee', spikeOptions, ['floor']);
      if (!(multiplier > 0) || !Number.isFinite(multiplier))
        throw new LabError(`multiplier must be > 0, not ${multiplier}`);
      const latest = await block('latest');
      const from = latest?.baseFeePerGas ?? 0n;
      const floor = spikeOptions.floor ?? 0n;
      const to = ((from > floor ? from : floor) * BigInt(Math.round(multiplier * 1000))) / 1000n;
      await rpc('anvil_setNextBlockBaseFeePerGas', [toQuantity(to)]);
      return { from, to };
    },
    async setNextBaseFee(wei) {
      await rpc('anvil_setNextBlockBaseFeePerGas', [toQuantity(wei)]);
    },
    dropTransaction: async (hash) => (await rpc<Hex | null>('anvil_dropTransaction', [hash])) !== null,
    async dropAll() {
      await rpc('anvil_dropAllTransactions');
    },
    pool: () => reporting('txpool_content', () => readPool(url)),
    async restartWithoutState() {
      clearInterval(ticker);
      ticker = undefined;
      await tick;
      paused = false;
      await anvil.stop();
      anvil = await launch();
    },
    async stop() {
      clearInterval(ticker);
      ticker = undefined;
      await tick;
      process.removeListener('exit', killOnExit);
      await anvil.stop();
    },
  };
  return handle;
}

/** The fee recipients of the branches `reorg` builds: 0x…b10c0001, 0x…b10c0002, … */
const BRANCH_PRODUCERS = 0xb10c_0000;

/** A request as anvil_reorg takes it: JSON-RPC quantities. */
function requestParams(tx: LabTransactionRequest): Record<string, unknown> {
  const out: Record<string, unknown> = { from: tx.from };
  if (tx.to !== undefined) out.to = tx.to;
  if (tx.data !== undefined) out.input = tx.data;
  for (const key of ['value', 'nonce', 'gas', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const) {
    const value = tx[key];
    if (value !== undefined) out[key] = toQuantity(value);
  }
  return out;
}
