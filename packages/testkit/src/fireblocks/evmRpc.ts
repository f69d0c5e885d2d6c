import type { Hex } from 'viem';

/** A JSON-RPC error answered by the node (as opposed to the node being unreachable). */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface RpcReceipt {
  status: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  gasUsed: Hex;
  effectiveGasPrice: Hex;
  from: Hex;
}

/** The few calls the simulator makes to an asset's chain, each bounded by a timeout. */
export class EvmRpc {
  private id = 0;
  constructor(
    readonly url: string,
    private readonly timeoutMs = 5_000,
  ) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string; data?: unknown } };
    if (body.error) throw new RpcError(body.error.code, body.error.message, body.error.data);
    return body.result as T;
  }

  async blockNumber(): Promise<number> {
    return Number(await this.call<Hex>('eth_blockNumber'));
  }

  async balance(address: Hex): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_getBalance', [address, 'latest']));
  }

  async pendingNonce(address: Hex): Promise<number> {
    return Number(await this.call<Hex>('eth_getTransactionCount', [address, 'pending']));
  }

  /** The address's transactions in blocks: every nonce below it is used on chain. */
  async minedNonce(address: Hex): Promise<number> {
    return Number(await this.call<Hex>('eth_getTransactionCount', [address, 'latest']));
  }

  async baseFee(): Promise<bigint> {
    const block = await this.call<{ baseFeePerGas?: Hex } | null>('eth_getBlockByNumber', ['latest', false]);
    return BigInt(block?.baseFeePerGas ?? '0x0');
  }

  async priorityFee(): Promise<bigint> {
    try {
      return BigInt(await this.call<Hex>('eth_maxPriorityFeePerGas'));
    } catch {
      return 1_000_000_000n;
    }
  }

  /** `value` as a JSON-RPC quantity (0x-prefixed hex wei); over the node's default state unless `blockTag` is given. */
  async estimateGas(tx: { from: Hex; to: Hex; data: Hex; value?: Hex }, blockTag?: 'latest'): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_estimateGas', blockTag ? [tx, blockTag] : [tx]));
  }

  sendRaw(raw: Hex): Promise<Hex> {
    return this.call<Hex>('eth_sendRawTransaction', [raw]);
  }

  /** Whether the node knows the transaction (in its pool or in a block). */
  async knows(hash: Hex): Promise<boolean> {
    return (await this.call<unknown>('eth_getTransactionByHash', [hash])) !== null;
  }

  receipt(hash: Hex): Promise<RpcReceipt | null> {
    return this.call<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);
  }
}
