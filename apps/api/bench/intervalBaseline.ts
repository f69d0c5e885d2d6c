// The baseline of the interval-mining capacity (bench/intervalMining.ts part (a)), measured in the same run on the
// same chain: viem alone, no database, sends a backlog of the same increments from a fresh account, pre-signed,
// in nonce order, 64 per JSON-RPC batch, one batch at a time. The share of each block's gas limit it fills shows
// what this machine and this anvil allow right now; the platform's share is compared with it.
import type { LabChain } from '@mountain/testkit/lab/chain.ts';
import { compileCounter } from '@mountain/testkit/testContract.ts';
import { encodeFunctionData, type Hex, parseEther, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { percentile } from '../scripts/lib/percentile.ts';

/** Sends `count` increments as fast as the node takes them; answers the share of each interior block they filled. */
export async function baselineShares(
  chain: LabChain,
  counter: Hex,
  options: { count: number; gas: bigint; gasLimit: number },
): Promise<number[]> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.rpc('anvil_setBalance', [account.address, toHex(parseEther('10000'))]);
  const data = encodeFunctionData({ abi: compileCounter().abi, functionName: 'increment', args: [1n] });
  const latest = await chain.block('latest');
  const baseFee = latest?.baseFeePerGas ?? 1_000_000_000n;
  const fees = { maxFeePerGas: baseFee * 2n + 1_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
  const signed: Hex[] = [];
  for (let nonce = 0; nonce < options.count; nonce++) {
    signed.push(
      await account.signTransaction({
        chainId: 1337,
        type: 'eip1559',
        to: counter,
        data,
        nonce,
        gas: options.gas,
        ...fees,
      }),
    );
  }
  const from = Number(await chain.head());
  for (let i = 0; i < signed.length; i += 64) {
    const batch = signed.slice(i, i + 64);
    await Promise.all(batch.map((tx) => chain.rpc('eth_sendRawTransaction', [tx])));
  }
  const deadline = Date.now() + 120_000;
  while (Number(await chain.rpc<Hex>('eth_getTransactionCount', [account.address, 'latest'])) < options.count) {
    if (Date.now() > deadline) throw new Error('baseline: not every transaction was mined in 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const to = Number(await chain.head());
  const shares: { number: number; ours: number }[] = [];
  for (let n = from + 1; n <= to; n++) {
    const block = await chain.rpc<{ gasUsed: Hex; transactions: { from: string }[] }>('eth_getBlockByNumber', [
      toHex(n),
      true,
    ]);
    const ours = block.transactions.filter((t) => t.from.toLowerCase() === account.address.toLowerCase()).length;
    if (ours > 0) shares.push({ number: n, ours: Number(block.gasUsed) / options.gasLimit });
  }
  // The first and last blocks of the backlog are partial.
  return shares.slice(1, -1).map((s) => s.ours);
}

/** One line for the report: the baseline's shares and the platform's median as a ratio of the baseline's. */
export function describeBaseline(shares: number[], platformMedian: number): string {
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  if (shares.length === 0) return '  baseline: its backlog fit in two blocks, nothing to compare';
  const median = percentile(shares, 50);
  return (
    `  baseline (viem only, pre-signed, no database) over ${shares.length} blocks: min ${pct(Math.min(...shares))}, ` +
    `median ${pct(median)}; platform / baseline (medians): ${(platformMedian / median).toFixed(2)}`
  );
}
