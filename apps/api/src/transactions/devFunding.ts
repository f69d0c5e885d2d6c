import { type Address, type PublicClient, parseEther } from 'viem';

const LOW = parseEther('10');
const TOP_UP = parseEther('10000');

/**
 * Development chain only (1337): a system wallet that runs low is topped up with `anvil_setBalance`, so that
 * `npm start` and the tests need no faucet. Other networks, and a 1337 node without that method, are funded by the
 * operator: nothing is done for them.
 */
export async function ensureDevFunds(client: PublicClient, networkId: number, address: Address): Promise<void> {
  if (networkId !== 1337) return;
  const balance = await client.getBalance({ address });
  if (balance >= LOW) return;
  try {
    await client.request({
      method: 'anvil_setBalance' as never,
      params: [address, `0x${TOP_UP.toString(16)}`] as never,
    });
  } catch {
    // Not an anvil node: its operator funds the wallet.
  }
}
