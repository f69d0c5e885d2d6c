import http from 'node:http';

export interface RpcProxyOptions {
  /** eth_getLogs over more blocks than this is refused with a JSON-RPC error, as many providers do. */
  maxLogRange?: number;
  /** Delay added to each eth_getLogs answer (to make a scan slow enough to interrupt). */
  getLogsDelayMs?: number;
  /** Drop `blockTimestamp` from eth_getLogs answers, as providers that predate the field do. */
  stripLogTimestamps?: boolean;
  /** Answer `anvil_getAutomine` with this instead of asking anvil (to present anvil's stalled automine). */
  reportAutomine?: boolean;
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
  type Answer = { id?: unknown; result?: unknown; error?: unknown };
  /** The proxy's own answer to a call (a refused eth_getLogs range, a reported automine), or undefined to forward it. */
  function refusal(call: Call): Answer | undefined {
    if (call.method === 'anvil_getAutomine' && settings.reportAutomine !== undefined) {
      return { id: call.id, result: settings.reportAutomine };
    }
    if (call.method !== 'eth_getLogs') return undefined;
    const { fromBlock, toBlock } = call.params[0] as { fromBlock: string; toBlock: string };
    const range: [number, number] = [Number(fromBlock), Number(toBlock)];
    if (settings.maxLogRange !== undefined && range[1] - range[0] + 1 > settings.maxLogRange) {
      refused.push(range);
      return {
        id: call.id,
        error: { code: -32005, message: `query exceeds max block range ${settings.maxLogRange}` },
      };
    }
    served.push(range);
    return undefined;
  }
  /**
   * Answers a batch: refused calls here, the others forwarded to anvil as one batch, in their order (so that
   * transactions sent in nonce order reach the node in nonce order, as over a direct connection).
   */
  async function answerBatch(calls: Call[]): Promise<Answer[]> {
    const answers: (Answer | undefined)[] = calls.map(refusal);
    const forwarded = calls.filter((_, i) => answers[i] === undefined);
    if (forwarded.length > 0) {
      if (settings.getLogsDelayMs && forwarded.some((c) => c.method === 'eth_getLogs')) {
        await new Promise((r) => setTimeout(r, settings.getLogsDelayMs));
      }
      const upstream = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(forwarded),
      });
      const results = (await upstream.json()) as Answer[];
      let next = 0;
      calls.forEach((call, i) => {
        if (answers[i] !== undefined) return;
        const result = results.find((r) => r.id === call.id) ?? results[next];
        next++;
        if (call.method === 'eth_getLogs' && settings.stripLogTimestamps && Array.isArray(result?.result)) {
          for (const log of result.result as Record<string, unknown>[]) delete log.blockTimestamp;
        }
        answers[i] = result;
      });
    }
    return answers.map((a) => ({ jsonrpc: '2.0', ...a }));
  }
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        if (Date.now() < stalledUntil) await new Promise((r) => setTimeout(r, stalledUntil - Date.now()));
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        // Batches (viem may send them) are answered call by call, so each can be refused on its own.
        const result = Array.isArray(message) ? await answerBatch(message) : (await answerBatch([message]))[0];
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
