/** The networks the Public API accepts (SPEC §5, §9). */
export const NETWORKS = [
  { id: 1, name: 'Ethereum', networkType: 'mainnet' },
  { id: 137, name: 'Polygon', networkType: 'mainnet' },
  { id: 42161, name: 'Arbitrum One', networkType: 'mainnet' },
  { id: 11155111, name: 'Ethereum Sepolia', networkType: 'testnet' },
  { id: 80002, name: 'Polygon Amoy', networkType: 'testnet' },
  { id: 421614, name: 'Arbitrum Sepolia', networkType: 'testnet' },
  { id: 1337, name: 'Local development chain (anvil)', networkType: 'testnet' },
] as const;

export type NetworkId = (typeof NETWORKS)[number]['id'];
export type NetworkType = 'mainnet' | 'testnet';

export const NETWORK_IDS = NETWORKS.map((n) => n.id) as NetworkId[];

export function networkTypeOf(networkId: NetworkId): NetworkType {
  const network = NETWORKS.find((n) => n.id === networkId);
  if (!network) throw new RangeError(`Unknown network ${networkId}`);
  return network.networkType;
}

/**
 * JSON-RPC calls per second the platform sends each network's RPC at most, per process (RPC_MAX_RPS_<id>; 0 or
 * absent: no client-side limit). 25/s fits the request rates of hosted providers' smaller plans (each call of a
 * batch counts); the local chain has none.
 */
export const DEFAULT_RPC_MAX_RPS: Readonly<Partial<Record<NetworkId, number>>> = Object.freeze({
  1: 25,
  137: 25,
  42161: 25,
  11155111: 25,
  80002: 25,
  421614: 25,
});

/** Blocks on top of a block before the platform treats it as settled, per network (CONFIRMATIONS_<id>). */
export const DEFAULT_CONFIRMATIONS: Readonly<Record<NetworkId, number>> = Object.freeze({
  1: 12,
  137: 64,
  42161: 20,
  11155111: 6,
  80002: 16,
  421614: 10,
  1337: 0,
});

/**
 * The most the platform signs for one unit of gas, per network, in gwei (MAX_FEE_PER_GAS_GWEI_<id>): fees follow a
 * rising base fee up to here, and above it transactions wait. About ten times a busy day's base fee, so that only a
 * rare spike makes transactions wait.
 */
/**
 * Per network, the balance under which a system wallet is reported low (LOW_BALANCE_WEI_<id>): a few days of
 * ordinary sending at a busy day's fees on mainnets, less on testnets and rollups.
 */
export const DEFAULT_LOW_BALANCE_WEI: Readonly<Record<NetworkId, bigint>> = Object.freeze({
  1: 50_000_000_000_000_000n,
  137: 5_000_000_000_000_000_000n,
  42161: 5_000_000_000_000_000n,
  11155111: 50_000_000_000_000_000n,
  80002: 1_000_000_000_000_000_000n,
  421614: 5_000_000_000_000_000n,
  1337: 1_000_000_000_000_000_000n,
});

export const DEFAULT_MAX_FEE_PER_GAS_GWEI: Readonly<Record<NetworkId, number>> = Object.freeze({
  1: 500,
  137: 5_000,
  42161: 10,
  11155111: 1_000,
  80002: 5_000,
  421614: 10,
  1337: 1_000,
});
