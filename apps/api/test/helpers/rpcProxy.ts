import http from 'node:http';

export interface RpcProxyOptions {
  /** eth_getLogs over more blocks than this is refused with a JSON-RPC error, as many providers do. */
  maxLogRange?: number;
  /** Delay added to each eth_getLogs answer (to make a scan slow enough to interrupt). */
  getLogsDelayMs?: number;
  /** Drop `blockTimestamp` from eth_getLogs answers, as providers that predate the field do. */
  stripLogTimestamps?: boolean;
}

/**
 * A JSON-RPC proxy on loopback in front of anvil that can refuse wide eth_getLogs ranges, slow them down, hang
 * (`stall(ms)`: every request waits, unanswered, until then), or disappear altogether (`down()` closes the port:
 * connections are refused) and come back (`up()`).
 */
export async function startRpcProxy(target: string, port: number, options: RpcProxyOptions = {}) {
  const settings = { ...options };
  const refused: [number, number][] = [];
  const served: [number, number][] = [];
  let stalledUntil = 0;
  type Call = { id: unknown; method: string; params: { fromBlock: string; toBlock: string }[] };
  /** One JSON-RPC call: refused, or forwarded to anvil (after the delay, for eth_getLogs). */
  async function answer(call: Call): Promise<unknown> {
    if (call.method === 'eth_getLogs') {
      const { fromBlock, toBlock } = call.params[0] as { fromBlock: string; toBlock: string };
      const range: [number, number] = [Number(fromBlock), Number(toBlock)];
      if (settings.maxLogRange !== undefined && range[1] - range[0] + 1 > settings.maxLogRange) {
        refused.push(range);
        return {
          jsonrpc: '2.0',
          id: call.id,
          error: { code: -32005, message: `query exceeds max block range ${settings.maxLogRange}` },
        };
      }
      served.push(range);
      if (settings.getLogsDelayMs) await new Promise((r) => setTimeout(r, settings.getLogsDelayMs));
    }
    const upstream = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    const result = (await upstream.json()) as { result?: unknown };
    if (call.method === 'eth_getLogs' && settings.stripLogTimestamps && Array.isArray(result.result)) {
      for (const log of result.result as Record<string, unknown>[]) delete log.blockTimestamp;
    }
    return result;
  }
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        if (Date.now() < stalledUntil) await new Promise((r) => setTimeout(r, stalledUntil - Date.now()));
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        // Batches (viem may send them) are answered call by call, so each can be refused on its own.
        const result = Array.isArray(message) ? await Promise.all(message.map(answer)) : await answer(message);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      } catch {
        res.writeHead(502).end();
      }
    });
  };
  let server: http.Server | undefined;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      server = http.createServer(handler);
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  await up();
  const stall = (ms: number) => {
    stalledUntil = Date.now() + ms;
  };
  return { url: `http://127.0.0.1:${port}`, settings, refused, served, up, down, stall, close: down };
}
