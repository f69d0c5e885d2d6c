// npm run bench:rpc — the cost of a network of several RPC endpoints: this process's CPU per JSON-RPC call through
// one endpoint (the baseline), through the platform's ranked endpoints (chain/endpoints.ts) over two, and through
// viem's `fallback` transport with ranking over the same two, each measured in the same run against two local
// JSON-RPC servers that answer at once (so the figure is the client's own work). Target: the ranked endpoints cost
// at most 1.25 × the baseline per call.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Figure, recordBench } from '@mountain/testkit/benchResults.ts';
import { createPublicClient, fallback, http as httpTransport, type PublicClient } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import { RPC_BATCH_SIZE } from '#api/chain/rpcBatches.ts';

const CALLS = Number(process.env.BENCH_RPC_CALLS ?? 20_000);
const IN_FLIGHT = 50;

/** A JSON-RPC server answering every call (or batch) with a fixed head. */
async function stubNode(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as { id: number } | { id: number }[];
      const answer = (call: { id: number }) => ({ jsonrpc: '2.0', id: call.id, result: '0x1234' });
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** This process's CPU (user + system, µs) per call of `CALLS` eth_blockNumber, IN_FLIGHT at a time; best of two. */
async function cpuPerCall(client: PublicClient): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 2; run++) {
    const before = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < CALLS) await client.request({ method: 'eth_blockNumber' });
      }),
    );
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / CALLS);
  }
  return best;
}

const [a, b] = await Promise.all([stubNode(), stubNode()]);
try {
  const single = createChains({ 1337: a.url }).client(1337);
  const ranked = createChains({ 1337: `${a.url},${b.url}` }).client(1337);
  const options = { retryCount: 0, batch: { batchSize: RPC_BATCH_SIZE, wait: 0 } };
  const viemFallback = createPublicClient({
    transport: fallback([httpTransport(a.url, options), httpTransport(b.url, options)], { rank: true, retryCount: 0 }),
  });
  // Warm-up: connections open, code compiled.
  for (const client of [single, ranked, viemFallback]) await client.request({ method: 'eth_blockNumber' });
  const baseline = await cpuPerCall(single);
  const ours = await cpuPerCall(ranked);
  const theirs = await cpuPerCall(viemFallback as PublicClient);
  console.log(`${CALLS} eth_blockNumber calls, ${IN_FLIGHT} at a time, this process's CPU per call:`);
  console.log(`  one endpoint:                         ${baseline.toFixed(1)} µs`);
  console.log(
    `  ranked endpoints (two):               ${ours.toFixed(1)} µs (${(ours / baseline).toFixed(2)} × one; target ≤ 1.25)`,
  );
  console.log(
    `  viem fallback with ranking (two):     ${theirs.toFixed(1)} µs (${(theirs / baseline).toFixed(2)} × one)`,
  );
  const figures: Figure[] = [
    { name: 'one endpoint, CPU per call', value: Number(baseline.toFixed(1)), unit: 'µs' },
    { name: 'ranked endpoints, CPU per call', value: Number(ours.toFixed(1)), unit: 'µs' },
    { name: 'viem fallback, CPU per call', value: Number(theirs.toFixed(1)), unit: 'µs' },
    {
      name: 'ranked endpoints ÷ one endpoint',
      value: Number((ours / baseline).toFixed(2)),
      unit: '',
      target: { op: '<=', value: 1.25 },
    },
  ];
  recordBench('rpc', figures);
  if (ours / baseline > 1.25) process.exitCode = 1;
} finally {
  await Promise.all([a.close(), b.close()]);
}
