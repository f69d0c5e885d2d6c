import { type Address, type PublicClient, parseEther } from 'viem';

const LOW = parseEther('10');
const TOP_UP = parseEther('10000');
/** A wallet seen with LOW or more is not asked again for this long: a busy sender's rounds come many a second. */
const FUNDED_FOR_MS = 1_000;
const seenFunded = new WeakMap<PublicClient, Map<Address, number>>();

/**
 * Development chain only (1337): a system wallet that runs low is topped up with `anvil_setBalance`, so that
 * `npm start` and the tests need no faucet. Other networks, and a 1337 node without that method, are funded by the
 * operator: nothing is done for them.
 */
export async function ensureDevFunds(client: PublicClient, networkId: number, address: Address): Promise<void> {
  if (networkId !== 1337) return;
  let seen = seenFunded.get(client);
  if (!seen) {
    seen = new Map();
    seenFunded.set(client, seen);
  }
  if (Date.now() - (seen.get(address) ?? Number.NEGATIVE_INFINITY) < FUNDED_FOR_MS) return;
  const balance = await client.getBalance({ address });
  if (balance >= LOW) {
    seen.set(address, Date.now());
    return;
  }
  try {
    await client.request({
      method: 'anvil_setBalance' as never,
      params: [address, `0x${TOP_UP.toString(16)}`] as never,
    });
  } catch {
    // Not an anvil node: its operator funds the wallet.
  }
}

/**
 * How long a broadcast transaction waits on chain 1337 before the monitor suspects a stalled automine (anvil mines
 * a block as soon as a transaction is ready; a wrong suspicion costs one empty block and one fee bump).
 */
export const DEV_STALL_MS = 1_000;

/**
 * Development chain only (1337): anvil's automine mines when a transaction arrives, and in a burst it can leave
 * transactions in its pool with nothing left to trigger another block (observed from about a thousand transactions
 * a second): either ready ones, which one mined block (`evm_mine`) takes, or, worse, the account's next nonce filed
 * as "queued" with every later one behind it, which no block promotes and only a replacement of that transaction
 * re-files. While automine is on, the monitor mines a block and answers true: the caller then re-sends the lowest
 * stalled transaction with a higher fee. With automine off (a developer mining by hand) or on another node, nothing
 * is done and the answer is false.
 */
export async function unstickDevChain(client: PublicClient, networkId: number): Promise<boolean> {
  if (networkId !== 1337) return false;
  try {
    const automine = await client.request({ method: 'anvil_getAutomine' as never });
    if (automine !== true) return false;
    await client.request({ method: 'evm_mine' as never });
    return true;
  } catch {
    // Not an anvil node.
    return false;
  }
}

/** Whether the node is anvil on chain 1337 mining a block per transaction (automine); asked at most every 5 s. */
export async function automineOn(client: PublicClient, networkId: number): Promise<boolean> {
  if (networkId !== 1337) return false;
  let known = automine.get(client);
  if (!known || Date.now() - known.at > 5_000) {
    const on = client.request({ method: 'anvil_getAutomine' as never }).then(
      (answer) => answer === true,
      () => false,
    );
    known = { on, at: Date.now() };
    automine.set(client, known);
  }
  return known.on;
}

const automine = new WeakMap<PublicClient, { on: Promise<boolean>; at: number }>();
