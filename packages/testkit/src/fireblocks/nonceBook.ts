import type { SimulatorStateData } from './simulatorState.ts';

/**
 * The nonces of the vault accounts' transactions, per `chainId:address`. Fireblocks assigns the nonces of a vault
 * account's transactions itself, per vault account and asset, and documents no more than that; the simulator keeps,
 * per address and chain, a counter that never goes below the chain's pending count, and gives a nonce to one live
 * transaction only. A nonce that a transaction released (it failed before the node took it: `release`) goes to the
 * next transaction that takes one, lowest first, so that no gap holds the later ones back; one the chain counts
 * meanwhile (the pending count is past it: another transaction of the address has it) is not given again. The
 * counters live in the simulator's state (they survive a restart with it).
 */
export class NonceBook {
  /** One take at a time per key. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly state: Pick<SimulatorStateData, 'nonces' | 'releasedNonces'>) {}

  /** The next nonce for `key`, given the chain's pending count for its address (read inside the key's turn). */
  take(key: string, pendingOnChain: () => Promise<number>): Promise<number> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const onChain = await pendingOnChain();
        // Read after the call: a release made while it was answered is seen.
        const state = this.state;
        const counter = Math.max(onChain, state.nonces[key] ?? 0);
        const released = (state.releasedNonces?.[key] ?? []).filter((n) => n >= onChain && n < counter);
        const nonce = released.shift() ?? counter;
        state.nonces[key] = nonce === counter ? counter + 1 : counter;
        state.releasedNonces = { ...state.releasedNonces, [key]: released };
        return nonce;
      });
    this.locks.set(key, next);
    return next;
  }

  /**
   * Gives `nonce` back (the node never took its transaction): the counter steps back when it was the highest given
   * (and over any released just below it), otherwise the nonce waits for the next take.
   */
  release(key: string, nonce: number): void {
    const state = this.state;
    let counter = state.nonces[key] ?? 0;
    if (nonce >= counter) return;
    const released = new Set(state.releasedNonces?.[key] ?? []);
    released.add(nonce);
    while (released.delete(counter - 1)) counter--;
    state.nonces[key] = counter;
    state.releasedNonces = { ...state.releasedNonces, [key]: [...released].sort((a, b) => a - b) };
  }
}
