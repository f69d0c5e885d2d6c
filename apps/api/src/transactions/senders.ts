import type { PublicClient } from 'viem';
import type { Chains } from '#api/chain/chains.ts';
import { type DevChain, devChainOf } from '#api/chain/devChain.ts';
import type { NetworkId } from '#api/config/networks.ts';
import type { Db } from '#api/db/db.ts';

/** The subject of the transaction jobs: one system wallet on one network. */
export interface WalletNetwork {
  walletId: number;
  networkId: number;
}

/** The node a (wallet, network) sends to and is watched on, with that network's development-chain remedies. */
export interface WalletChain {
  client: PublicClient;
  /** anvil's remedies on the development chain, NO_DEV_CHAIN on a real network. */
  devChain: DevChain;
}

/**
 * The chain of a sender's, a monitor's or a look at the in-flight room's (wallet, network): the one place the
 * transaction jobs tell the development chain from a real network (devChainOf). Throws when the network has no RPC
 * endpoint.
 */
export function walletChain(chains: Chains, target: WalletNetwork): WalletChain {
  const client = chains.client(target.networkId as NetworkId);
  return { client, devChain: devChainOf(client, target.networkId) };
}

/** What the sender queues: itself again (to go on, or after a pause), and the wallet's receipt monitor. */
export interface SenderQueue {
  again(runAt?: Date): Promise<void>;
  monitor(): Promise<void>;
}

/** After this long without a sender clearing it, a wake request is made again (its job may have been lost). */
export const WAKE_STALE_AFTER = "interval '10 seconds'";

// Per database handle: a process may hold several (tests, benches), each with its own rows.
const ensuredSenders = new WeakMap<object, Set<string>>();

/** Creates the wake flag row of a (wallet, network) once; remembered per process, rows are never deleted. */
export async function ensureSender(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  const key = `${target.walletId}:${target.networkId}`;
  let ensured = ensuredSenders.get(db);
  if (ensured?.has(key)) return;
  await db.query(
    'INSERT INTO transaction_senders (system_wallet_id, network_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [target.walletId, target.networkId],
  );
  if (!ensured) {
    ensured = new Set();
    ensuredSenders.set(db, ensured);
  }
  ensured.add(key);
}

/**
 * Called by the sender when it starts: later acceptances must queue a new job, because this run may already have
 * read past their rows.
 */
export async function clearWakeRequest(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  await db.query(
    'UPDATE transaction_senders SET wake_requested_at = NULL WHERE system_wallet_id = $1 AND network_id = $2 AND wake_requested_at IS NOT NULL',
    [target.walletId, target.networkId],
  );
}

/**
 * Sets the wake flag for a sender that is running and will read every row accepted before it lets go
 * (`clearWakeRequest`, then one more look): acceptances meanwhile find the flag set and queue no job, which would
 * only find the run's lock held and come back later. Set again by a long run before it turns stale (WAKE_STALE_AFTER).
 */
export async function holdWakeRequest(db: Pick<Db, 'query'>, target: WalletNetwork): Promise<void> {
  await db.query(
    'UPDATE transaction_senders SET wake_requested_at = now() WHERE system_wallet_id = $1 AND network_id = $2',
    [target.walletId, target.networkId],
  );
}

/** How often a running sender sets its held wake flag again: well inside WAKE_STALE_AFTER. */
export const HOLD_WAKE_EVERY_MS = 3_000;
