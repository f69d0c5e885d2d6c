import type { PublicClient } from 'viem';
import { finalizedTag } from '#api/chain/canonicalBlocks.ts';
import type { Db } from '#api/db/db.ts';

/** What the platform takes to be the network's chain right now. */
export interface ChainView {
  /** The head the node answered. */
  head: number;
  /** The newest final block: the node's `finalized` tag, or the head less the confirmation depth without one. */
  finalized: number;
  /**
   * The node answered a head lower than the recorded one, and lower answers have not lasted `lagGraceMs` yet: a
   * load-balanced node behind the others. Nothing above its head is taken back while it lags; a lower head that
   * lasts is a rollback.
   */
  lagging: boolean;
}

/**
 * Asks the node for its head and finalized block and records them as the network's newest (`network_heads`,
 * which also counts every answer's `confirmations`). A head lower than the recorded one counts as lag until lower
 * answers have lasted `lagGraceMs` from the first of them, with no answer of the recorded head or higher between
 * (which starts the count again); then it is the chain's (a rollback, a reset) and replaces the recorded one.
 */
export async function observeChain(
  db: Db,
  client: PublicClient,
  networkId: number,
  options: { fallbackDepth: number; lagGraceMs: number },
): Promise<ChainView> {
  const [headBig, tag] = await Promise.all([client.getBlockNumber({ cacheTime: 0 }), finalizedTag(client)]);
  const head = Number(headBig);
  const finalized = tag ?? head - options.fallbackDepth;
  const { rows } = await db.query<{ lagging: boolean }>(
    `WITH before AS (SELECT head, lower_head_since FROM network_heads WHERE network_id = $1),
     lag AS (SELECT EXISTS (SELECT 1 FROM before WHERE before.head > $2
                              AND (before.lower_head_since IS NULL
                                   OR before.lower_head_since > now() - $4 * interval '1 millisecond')) AS lagging),
     noted AS (
       -- The first lower answer starts the clock; later ones leave it.
       UPDATE network_heads SET lower_head_since = now()
        WHERE network_id = $1 AND head > $2 AND lower_head_since IS NULL
     ),
     -- Never the row \`noted\` changes: a first lower answer is lag, so nothing is written below (a statement may not
     -- modify one row twice).
     written AS (
       INSERT INTO network_heads AS h (network_id, head, finalized, head_seen_at)
       SELECT $1, $2, $3, now() FROM lag WHERE NOT lag.lagging
       ON CONFLICT (network_id) DO UPDATE
         SET head = excluded.head, finalized = excluded.finalized, head_seen_at = now(), lower_head_since = NULL,
             updated_at = now()
         -- Every monitor of the network passes here several times a second: write only when something moved.
         WHERE h.head <> excluded.head OR h.finalized <> excluded.finalized OR h.lower_head_since IS NOT NULL
     )
     SELECT lagging FROM lag`,
    [networkId, head, Math.max(0, finalized), options.lagGraceMs],
    'observe-chain',
  );
  return { head, finalized: Math.max(0, finalized), lagging: rows[0]?.lagging ?? false };
}
