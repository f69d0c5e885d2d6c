import type { NetworkId } from '@mountain/public-api-client';

/** The API's networks, their native coin, and the block explorer a person would open (none for the local chain). */
export const NETWORKS: Record<NetworkId, { name: string; coin: string; explorer?: string }> = {
  1: { name: 'Ethereum', coin: 'ETH', explorer: 'https://etherscan.io' },
  137: { name: 'Polygon', coin: 'POL', explorer: 'https://polygonscan.com' },
  42161: { name: 'Arbitrum One', coin: 'ETH', explorer: 'https://arbiscan.io' },
  11155111: { name: 'Sepolia', coin: 'ETH', explorer: 'https://sepolia.etherscan.io' },
  80002: { name: 'Polygon Amoy', coin: 'POL', explorer: 'https://amoy.polygonscan.com' },
  421614: { name: 'Arbitrum Sepolia', coin: 'ETH', explorer: 'https://sepolia.arbiscan.io' },
  1337: { name: 'Local chain 1337', coin: 'ETH' },
};

export const NETWORK_IDS = Object.keys(NETWORKS).map(Number) as NetworkId[];

export const networkName = (id: number) => NETWORKS[id as NetworkId]?.name ?? `network ${id}`;

/** The explorer's page of a transaction, block or address; undefined on a network without an explorer. */
export function explorerUrl(
  networkId: number,
  kind: 'tx' | 'block' | 'address',
  value: string | number,
): string | undefined {
  const base = NETWORKS[networkId as NetworkId]?.explorer;
  return base ? `${base}/${kind}/${value}` : undefined;
}
