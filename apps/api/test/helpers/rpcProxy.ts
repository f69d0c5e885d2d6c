import http from 'node:http';

export interface RpcProxyOptions {
  /** eth_getLogs over more blocks than this is refused with a JSON-RPC error, as many providers do. */
  maxLogRange?: number;
  /** Delay added to each eth_getLogs answer (to make a scan slow enough to interrupt). */
  getLogsDelayMs?: number;
}

/**
 * A JSON-RPC proxy on loopback in front of anvil that can refuse wide eth_getLogs ranges, slow them down, or
 * disappear altogether (`down()` closes the port: connections are refused) and come back (`up()`).
 */
export async function startRpcProxy(target: string, port: number, options: RpcProxyOptions = {}) {
  const settings = { ...options };
  const refused: [number, number][] = [];
  const served: [number, number][] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const message = JSON.parse(body);
      if (!Array.isArray(message) && message.method === 'eth_getLogs') {
        const { fromBlock, toBlock } = message.params[0];
        const range: [number, number] = [Number(fromBlock), Number(toBlock)];
        if (settings.maxLogRange !== undefined && range[1] - range[0] + 1 > settings.maxLogRange) {
          refused.push(range);
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32005, message: `query exceeds max block range ${settings.maxLogRange}` },
            }),
          );
          return;
        }
        served.push(range);
        if (settings.getLogsDelayMs) await new Promise((r) => setTimeout(r, settings.getLogsDelayMs));
      }
      try {
        const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
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
  return { url: `http://127.0.0.1:${port}`, settings, refused, served, up, down, close: down };
}
