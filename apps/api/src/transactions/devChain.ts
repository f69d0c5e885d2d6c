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

/** How long a broadcast transaction waits on chain 1337 before the monitor suspects a stalled automine. */
export const DEV_STALL_MS = 3_000;

/**
 * Development chain only (1337): anvil's automine mines when a transaction arrives, and in a burst it can leave
 * ready transactions in its pool with nothing left to trigger another block (observed from about a thousand
 * transactions a second; a replacement does not always wake it either). While automine is on, the monitor then
 * mines one block (`evm_mine`), which takes every ready transaction. With automine off (a developer mining by
 * hand) or on another node, nothing is done.
 */
export async function unstickDevChain(client: PublicClient, networkId: number): Promise<void> {
  if (networkId !== 1337) return;
  try {
    const automine = await client.request({ method: 'anvil_getAutomine' as never });
    if (automine === true) await client.request({ method: 'evm_mine' as never });
  } catch {
    // Not an anvil node.
  }
}
