import assert from 'node:assert/strict';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Hex } from 'viem';
import type { Db } from '#api/db/db.ts';
import { mapLimit } from '#api/lib/mapLimit.ts';

/** A transaction as the platform recorded it. */
interface RecordedRow {
  id: string;
  status: string;
  hash: Hex | null;
  nonce: number | null;
  blockNumber: number | null;
  blockHash: string | null;
  gasUsed: string | null;
  finalized: boolean;
  wallet: string;
  /** The called contract's (or value recipient's) address, lower case. */
  to: string;
  /** The wei it carries, decimal. */
  value: string;
}

type Rpc = <T>(method: string, params?: unknown[]) => Promise<T>;

/**
 * Checks what the platform says of a project's transactions against the canonical chain, and answers every broken
 * promise, one line each (none: all true):
 * - every transaction is final: succeeded or reverted, and `finalized`; or `cancelled`, either never sent (no
 *   nonce, no hash) or `finalized` under the hash of its cancelling transfer;
 * - its `transactionHash` has a receipt on the canonical chain, whose block number, block hash, gas used and
 *   outcome are the row's, and the canonical block at that height is that block; a cancelled row's is a
 *   successful 0-value transfer from the wallet to itself at the row's nonce;
 * - exactly once: no two rows of one wallet share a nonce, no two rows a hash; each wallet's on-chain transactions to the contract are
 *   exactly the hashes of the succeeded and reverted rows calling it, those to itself exactly the cancelled rows'
 *   hashes, and (with `recipient`) those to the recipient exactly the hashes of the rows paying it, whose balance
 *   is `balanceBefore` (0 unless given) plus the value of the succeeded ones;
 * - the wallet's nonces are contiguous from 0 and its on-chain nonce is one past the highest.
 */
export async function canonicalViolations(
  db: Db,
  rpc: Rpc,
  projectId: number,
  options: { contract: string; fromBlock?: number; recipient?: { address: string; balanceBefore?: bigint } },
): Promise<string[]> {
  const { rows } = await db.query<RecordedRow>(
    `SELECT t.id, t.status, t.transaction_hash AS hash, t.nonce, t.block_number AS "blockNumber",
            t.block_hash AS "blockHash", t.gas_used::text AS "gasUsed", t.finalized_at IS NOT NULL AS finalized,
            lower(w.address) AS wallet, lower(c.address) AS "to", t.value::text AS value
       FROM transactions t JOIN system_wallets w ON w.id = t.system_wallet_id
       JOIN contract_activated_functions f ON f.id = t.contract_activated_function_id
       JOIN contracts c ON c.id = f.contract_id
      WHERE t.project_id = $1 ORDER BY t.nonce`,
    [projectId],
  );
  // The rows' receipts are read 16 at a time, and each block once: a run of a thousand rows in a few blocks is a
  // thousand receipts, not two thousand calls one after the other.
  const canonicalHash = new Map<string, Promise<Hex | undefined>>();
  const canonicalHashAt = (number: Hex) => {
    if (!canonicalHash.has(number))
      canonicalHash.set(
        number,
        rpc<{ hash: Hex } | null>('eth_getBlockByNumber', [number, false]).then((block) => block?.hash),
      );
    return canonicalHash.get(number) as Promise<Hex | undefined>;
  };
  const findings = await mapLimit(rows, 16, async (row) => {
    const name = `transaction ${row.id} (nonce ${row.nonce})`;
    // Cancelled before it was sent: nothing of it is anywhere (its nonce went to the next row).
    if (row.status === 'cancelled' && row.hash === null)
      return row.nonce === null && row.blockNumber === null
        ? []
        : [`${name}: cancelled unsent, yet has a nonce or block`];
    if (!['succeeded', 'reverted', 'cancelled'].includes(row.status) || !row.finalized)
      return [`${name} is ${row.status}${row.finalized ? '' : ', not finalized'}`];
    const receipt = await rpc<{ blockNumber: Hex; blockHash: Hex; gasUsed: Hex; status: Hex } | null>(
      'eth_getTransactionReceipt',
      [row.hash],
    );
    if (!receipt) return [`${name}: ${row.hash} has no receipt on the canonical chain`];
    const found: string[] = [];
    if (row.status === 'cancelled') {
      const tx = await rpc<{ from: string; to: string | null; value: Hex; nonce: Hex } | null>(
        'eth_getTransactionByHash',
        [row.hash],
      );
      if (
        !tx ||
        tx.from.toLowerCase() !== row.wallet ||
        tx.to?.toLowerCase() !== row.wallet ||
        BigInt(tx.value) !== 0n ||
        Number(tx.nonce) !== Number(row.nonce)
      )
        found.push(
          `${name}: cancelled under ${row.hash}, which is not a 0-value transfer to the wallet at its nonce (to ${tx?.to}, value ${tx?.value}, nonce ${tx ? Number(tx.nonce) : '-'})`,
        );
      if (receipt.status !== '0x1') found.push(`${name}: cancelled, its cancelling transfer reverted`);
    }
    if ((await canonicalHashAt(receipt.blockNumber)) !== receipt.blockHash)
      found.push(`${name}: its receipt's block is not canonical`);
    if (Number(receipt.blockNumber) !== Number(row.blockNumber))
      found.push(`${name}: blockNumber ${row.blockNumber}, the chain says ${Number(receipt.blockNumber)}`);
    if (receipt.blockHash !== row.blockHash)
      found.push(`${name}: blockHash ${row.blockHash}, the chain says ${receipt.blockHash}`);
    if (BigInt(receipt.gasUsed).toString() !== row.gasUsed)
      found.push(`${name}: gasUsed ${row.gasUsed}, the chain says ${BigInt(receipt.gasUsed)}`);
    const outcome = receipt.status === '0x1' ? 'succeeded' : 'reverted';
    if (row.status !== 'cancelled' && outcome !== row.status)
      found.push(`${name}: ${row.status}, the chain says ${outcome}`);
    return found;
  });
  const broken = findings.flat();
  // Rows never sent have neither (reported above as not final): only those that have one can share it.
  const nonces = rows.filter((r) => r.nonce !== null).map((r) => `${r.wallet}:${r.nonce}`);
  if (new Set(nonces).size !== nonces.length) broken.push(`two transactions share a nonce: ${nonces.join(', ')}`);
  const sent = rows.filter((r) => r.hash !== null);
  const hashes = new Set(sent.map((r) => r.hash));
  if (hashes.size !== sent.length) broken.push('two transactions share a hash');
  const recipient = options.recipient?.address.toLowerCase();
  for (const wallet of new Set(rows.map((r) => r.wallet))) {
    const onChain = await transactionsOf(rpc, wallet, options.fromBlock ?? 0);
    const mine = rows.filter((r) => r.wallet === wallet);
    // What each destination's on-chain transactions must be: exactly these rows' hashes.
    const expected = (to: string, statuses: string[]) =>
      new Set(mine.filter((r) => r.to === to && statuses.includes(r.status) && r.hash !== null).map((r) => r.hash));
    const destinations: [string, string, Set<Hex | null>][] = [
      [
        'the contract',
        options.contract.toLowerCase(),
        expected(options.contract.toLowerCase(), ['succeeded', 'reverted']),
      ],
      [
        'itself (cancels)',
        wallet,
        new Set(mine.filter((r) => r.status === 'cancelled' && r.hash !== null).map((r) => r.hash)),
      ],
      ...(recipient
        ? [
            ['the recipient', recipient, expected(recipient, ['succeeded', 'reverted'])] as [
              string,
              string,
              Set<Hex | null>,
            ],
          ]
        : []),
    ];
    for (const [label, to, want] of destinations) {
      const sentTo = onChain.filter((tx) => tx.to === to);
      const extra = sentTo.filter((tx) => !want.has(tx.hash));
      if (extra.length > 0)
        broken.push(`${wallet}: ${extra.length} on-chain transactions to ${label} belong to no row`);
      if (sentTo.length !== want.size)
        broken.push(`${wallet}: ${sentTo.length} on-chain transactions to ${label} for ${want.size} rows`);
    }
    const chainNonces = onChain.map((tx) => tx.nonce).sort((a, b) => a - b);
    if (chainNonces.some((n, i) => n !== i)) broken.push(`${wallet}: on-chain nonces are not 0…${onChain.length - 1}`);
    const next = Number(await rpc<Hex>('eth_getTransactionCount', [wallet, 'latest']));
    const highest = Math.max(-1, ...mine.filter((r) => r.nonce !== null).map((r) => Number(r.nonce)));
    if (next !== highest + 1 && next !== onChain.length)
      broken.push(`${wallet}: on-chain nonce ${next} does not follow the highest recorded nonce ${highest}`);
  }
  if (recipient) {
    const paid = rows
      .filter((r) => r.to === recipient && r.status === 'succeeded')
      .reduce((sum, r) => sum + BigInt(r.value), 0n);
    const balance = BigInt(await rpc<Hex>('eth_getBalance', [recipient, 'latest']));
    const wanted = (options.recipient?.balanceBefore ?? 0n) + paid;
    if (balance !== wanted) broken.push(`${recipient}: balance ${balance} wei, the succeeded rows paid it ${paid}`);
  }
  return broken;
}

/** Every transaction the wallet sent on the canonical chain from `fromBlock` to the head. */
async function transactionsOf(rpc: Rpc, wallet: string, fromBlock: number) {
  const head = Number(await rpc<Hex>('eth_blockNumber'));
  const numbers = Array.from({ length: Math.max(0, head - fromBlock + 1) }, (_, i) => fromBlock + i);
  const blocks = await mapLimit(numbers, 16, (n) =>
    rpc<{ transactions: { hash: Hex; from: string; to: string | null; nonce: Hex }[] } | null>('eth_getBlockByNumber', [
      `0x${n.toString(16)}`,
      true,
    ]),
  );
  return blocks.flatMap((block) =>
    (block?.transactions ?? [])
      .filter((tx) => tx.from.toLowerCase() === wallet)
      .map((tx) => ({ hash: tx.hash, to: tx.to?.toLowerCase() ?? null, nonce: Number(tx.nonce) })),
  );
}

/** A transaction's status as a test samples it while waiting. */
export interface SampledRow {
  id: string;
  status: string;
  finalized: boolean;
}

/**
 * Waits until every transaction of the project is final (`onLook` sees each sample), then asserts that what the
 * platform says of them is true on the canonical chain (canonicalViolations answers nothing).
 */
export async function assertFinalOnChain(
  db: Db,
  rpc: Rpc,
  projectId: number,
  options: { contract: string; timeoutMs?: number; onLook?: (rows: SampledRow[]) => void | Promise<void> },
): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await db.query<SampledRow>(
        'SELECT id, status, finalized_at IS NOT NULL AS finalized FROM transactions WHERE project_id = $1',
        [projectId],
      );
      await options.onLook?.(rows);
      return rows.every((r) => r.finalized) ? true : undefined;
    },
    options.timeoutMs ?? 60_000,
    'every transaction final',
  );
  assert.deepEqual(await canonicalViolations(db, rpc, projectId, { contract: options.contract }), []);
}
