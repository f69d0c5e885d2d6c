import { EvmRpc } from './evmRpc.ts';

export interface AssetConfig {
  rpcUrl: string;
  chainId: number;
}

/**
 * Decimals of every configured asset: each is its EVM chain's native coin (ETH_TEST5, ETH, …), of 18 decimals, so an
 * amount in the asset's units ("0.015") is that many ether and `amount × 10^18` wei on chain.
 */
export const NATIVE_DECIMALS = 18;

/** How long a read of a chain's head serves every transaction of the asset. */
const HEAD_TTL_MS = 50;

/** The chain of each configured asset: its JSON-RPC client, its chain id, and its head read at most every 50 ms. */
export class AssetChains {
  private readonly rpcs = new Map<string, EvmRpc>();
  /** Each asset's chain head, read at most every HEAD_TTL_MS however many transactions wait for blocks. */
  private readonly heads = new Map<string, { at: number; head: Promise<number> }>();

  constructor(private readonly assets: Record<string, AssetConfig>) {}

  rpc(assetId: string): EvmRpc {
    const asset = this.assets[assetId];
    if (!asset) throw new Error(`asset ${assetId} is not configured`);
    let rpc = this.rpcs.get(assetId);
    if (!rpc) {
      rpc = new EvmRpc(asset.rpcUrl);
      this.rpcs.set(assetId, rpc);
    }
    return rpc;
  }

  chainId(assetId: string): number {
    return (this.assets[assetId] as AssetConfig).chainId;
  }

  head(assetId: string): Promise<number> {
    const known = this.heads.get(assetId);
    if (known && Date.now() - known.at < HEAD_TTL_MS) return known.head;
    const head = this.rpc(assetId).blockNumber();
    this.heads.set(assetId, { at: Date.now(), head });
    head.catch(() => this.heads.delete(assetId));
    return head;
  }
}
