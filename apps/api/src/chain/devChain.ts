import { type Address, type PublicClient, parseEther } from 'viem';

/**
 * What the platform may ask of a network's node beyond JSON-RPC: the remedies of the local development chain
 * (1337, anvil), so that `npm start` and the tests need no faucet and survive anvil's automine stalls. On every
 * other network it is NO_DEV_CHAIN, which does nothing: its operator funds the wallets and its miners mine.
 * `devChainOf` is the one place that tells the development chain from a real network, and it is asked once per
 * (wallet, network): by walletChain (transactions/senders.ts), whose answer the sender and the monitor carry.
 */
export interface DevChain {
  /** Tops up a system wallet that runs low (`anvil_setBalance`); a node without that method is left alone. */
  ensureFunds(address: Address): Promise<void>;
  /**
   * With automine on, mines a block (`evm_mine`) and answers true: the caller then re-sends the lowest stalled
   * transaction with a higher fee. Otherwise (automine off, another node) nothing is done and the answer is false.
   */
  unstick(): Promise<boolean>;
  /** Whether the node mines a block per transaction (anvil's automine); asked at most every 5 s. */
  automineOn(): Promise<boolean>;
}

/** The development chain's id: the only network with remedies. */
export const DEV_CHAIN_ID = 1337;

/**
 * How long a broadcast transaction waits on the development chain before the monitor suspects a stalled automine
 * (anvil mines a block as soon as a transaction is ready; a wrong suspicion costs one empty block and one fee bump).
 */
export const DEV_STALL_MS = 1_000;

/** A real network: no remedies. */
export const NO_DEV_CHAIN: DevChain = Object.freeze({
  ensureFunds: async () => {},
  unstick: async () => false,
  automineOn: async () => false,
});

/** The remedies of the network `client` talks to: anvil's on the development chain, none elsewhere. */
export function devChainOf(client: PublicClient, networkId: number): DevChain {
  if (networkId !== DEV_CHAIN_ID) return NO_DEV_CHAIN;
  let chain = anvils.get(client);
  if (!chain) {
    chain = anvil(client);
    anvils.set(client, chain);
  }
  return chain;
}

const anvils = new WeakMap<PublicClient, DevChain>();

const LOW = parseEther('10');
const TOP_UP = parseEther('10000');
/** A wallet seen with LOW or more is not asked again for this long: a busy sender's rounds come many a second. */
const FUNDED_FOR_MS = 1_000;
/** How long an answer about automine is kept. */
const AUTOMINE_KNOWN_MS = 5_000;

/**
 * anvil's remedies. Its automine mines when a transaction arrives, and in a burst it can leave transactions in its
 * pool with nothing left to trigger another block (observed from about a thousand transactions a second): either
 * ready ones, which one mined block takes, or, worse, the account's next nonce filed as "queued" with every later
 * one behind it, which no block promotes and only a replacement of that transaction re-files.
 */
function anvil(client: PublicClient): DevChain {
  const seenFunded = new Map<Address, number>();
  let automine: { on: Promise<boolean>; at: number } | undefined;
  return {
    async ensureFunds(address) {
      if (Date.now() - (seenFunded.get(address) ?? Number.NEGATIVE_INFINITY) < FUNDED_FOR_MS) return;
      const balance = await client.getBalance({ address });
      if (balance >= LOW) {
        seenFunded.set(address, Date.now());
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
    },
    async unstick() {
      try {
        const on = await client.request({ method: 'anvil_getAutomine' as never });
        if (on !== true) return false;
        await client.request({ method: 'evm_mine' as never });
        return true;
      } catch {
        // Not an anvil node.
        return false;
      }
    },
    automineOn() {
      if (!automine || Date.now() - automine.at > AUTOMINE_KNOWN_MS) {
        const on = client.request({ method: 'anvil_getAutomine' as never }).then(
          (answer) => answer === true,
          () => false,
        );
        automine = { on, at: Date.now() };
      }
      return automine.on;
    },
  };
}
