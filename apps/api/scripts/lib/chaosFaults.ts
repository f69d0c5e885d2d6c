// The faults `npm run chaos` injects, drawn from a seeded generator so that a run can be replayed: reorgs of depth
// 1–10 with and without re-inclusion, a platform transaction dropped from the node's pool, base-fee spikes of
// ×10–×50, a provider outage, a lagging node, a speed-up asked for a waiting platform transaction, a cancel asked
// for a waiting transaction (created, or broadcasted by a wallet the platform signs for).
import type { LabChain } from '@mountain/testkit/lab/chain.ts';
import type { PoolEntry } from '@mountain/testkit/lab/pool.ts';
import type { ProviderProxy } from '@mountain/testkit/lab/providerProxy.ts';
import { parseGwei } from 'viem';

export type FaultKind = 'reorg' | 'drop' | 'spike' | 'outage' | 'lag' | 'speedup' | 'cancel';

/** How often each fault is drawn, relative to the others. */
const WEIGHTS: Record<FaultKind, number> = { reorg: 3, drop: 2, spike: 1, outage: 1, lag: 2, speedup: 2, cancel: 2 };

/** A spike is held under this base fee, well below the platform's fee cap on 1337 (1,000 gwei). */
const SPIKE_CEILING = parseGwei('300');
/**
 * A spike multiplies 1 gwei at least: nearly empty blocks take the base fee towards zero, where a spike would stay
 * below the tip a transaction's fee cap already carries and price nothing out.
 */
const SPIKE_FLOOR = parseGwei('1');

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FaultInjector {
  /** Injects one fault drawn at random; answers what was done, one line. */
  next(): Promise<{ kind: FaultKind; done: boolean; what: string }>;
}

export function faultInjector(
  random: () => number,
  chain: LabChain,
  provider: ProviderProxy,
  wallets: string[],
  /** Asks for a speed-up of one waiting transaction, drawn with `pick` (in [0, 1)); answers what happened. */
  speedUp: (pick: number, multiplier: number) => Promise<{ done: boolean; what: string }>,
  /** Asks for the cancel of one waiting transaction, drawn with `pick` (in [0, 1)); answers what happened. */
  cancel: (pick: number) => Promise<{ done: boolean; what: string }>,
): FaultInjector {
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const total = Object.values(WEIGHTS).reduce((s, w) => s + w, 0);
  const draw = (): FaultKind => {
    let r = random() * total;
    for (const [kind, weight] of Object.entries(WEIGHTS) as [FaultKind, number][]) {
      r -= weight;
      if (r < 0) return kind;
    }
    return 'reorg';
  };
  const ours = new Set(wallets.map((w) => w.toLowerCase()));

  const faults: Record<FaultKind, () => Promise<{ done: boolean; what: string }>> = {
    async reorg() {
      const depth = int(1, 10);
      const reinclude = random() < 0.5 ? 'removed' : 'none';
      const r = await chain.reorg(depth, { reinclude });
      return {
        done: true,
        what: `reorg depth ${depth} (${reinclude === 'removed' ? 're-included' : 'not re-included'}): ${r.reincluded.length} re-included, ${r.dropped.length} dropped`,
      };
    },
    async drop() {
      const index = random();
      // With a block a second the pool is often empty of ours for a moment: look a few times.
      let candidates: PoolEntry[] = [];
      for (let look = 0; look < 10 && candidates.length === 0; look++) {
        if (look > 0) await new Promise((r) => setTimeout(r, 100));
        const pool = await chain.pool();
        candidates = Object.entries(pool.pending)
          .filter(([sender]) => ours.has(sender.toLowerCase()))
          .flatMap(([, entries]) => entries);
      }
      const pick = candidates[Math.floor(index * candidates.length)];
      if (!pick) return { done: false, what: 'drop: no platform transaction in the pool for 1 s (skipped)' };
      const dropped = await chain.dropTransaction(pick.hash);
      return {
        done: dropped,
        what: `dropped ${pick.hash.slice(0, 10)}… (nonce ${pick.nonce}) and its sender's later ones from the pool`,
      };
    },
    async spike() {
      const latest = (await chain.block('latest'))?.baseFeePerGas ?? 0n;
      const base = latest > SPIKE_FLOOR ? latest : SPIKE_FLOOR;
      const wanted = int(10, 50);
      const multiplier = Math.min(wanted, Number(SPIKE_CEILING / base));
      if (multiplier < 2) return { done: false, what: `spike ×${wanted}: the base fee is already high (skipped)` };
      const s = await chain.spikeBaseFee(multiplier, { floor: SPIKE_FLOOR });
      return {
        done: true,
        what: `base fee ×${multiplier}${latest < SPIKE_FLOOR ? ' of 1 gwei' : ''}: ${gwei(s.from)} → ${gwei(s.to)} gwei for the next block`,
      };
    },
    async outage() {
      const ms = int(2_000, 5_000);
      await provider.down();
      await new Promise((r) => setTimeout(r, ms));
      await provider.up();
      return { done: true, what: `provider down for ${(ms / 1000).toFixed(1)} s (connections refused)` };
    },
    async speedup() {
      const pick = random();
      const multiplier = int(110, 400) / 100;
      return speedUp(pick, multiplier);
    },
    async cancel() {
      return cancel(random());
    },
    async lag() {
      const ms = int(3_000, 8_000);
      const blocks = int(2, 5);
      provider.lagFor(ms, blocks);
      return {
        done: true,
        what: `provider answers from a node ${blocks} blocks behind for ${(ms / 1000).toFixed(1)} s`,
      };
    },
  };
  return {
    async next() {
      const kind = draw();
      return { kind, ...(await faults[kind]()) };
    },
  };
}

const gwei = (wei: bigint) => (Number(wei) / 1e9).toFixed(3);
