import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, http as httpTransport } from 'viem';
import { rpcFetch } from '#api/chain/rpcFetch.ts';

describe('rpcFetch (the JSON-RPC clients’ HTTP requests)', () => {
  let server: http.Server;
  let url: string;
  const seen: { method?: string; contentType?: string; body: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({ method: req.method, contentType: req.headers['content-type'], body });
        if (req.url === '/huge') {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(1 << 20, 0x20);
          for (let i = 0; i < 11; i++) res.write(chunk);
          res.end('{}');
        } else if (req.url === '/slow') {
          setTimeout(() => res.end('{}'), 2_000);
        } else if (req.url === '/utf8') {
          // A character of two bytes split between two chunks, after a megabyte of ASCII.
          const text = Buffer.from(`{"error":{"message":"${'a'.repeat(1 << 20)}é ünïcödé"}}`);
          const split = text.indexOf(0xc3) + 1;
          res.writeHead(500, { 'content-type': 'application/json' });
          res.write(text.subarray(0, split));
          setTimeout(() => res.end(text.subarray(split)), 20);
        } else if (req.url === '/down') {
          res.writeHead(503, { 'retry-after': '7' }).end('busy');
        } else {
          const { id } = JSON.parse(body) as { id: number };
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x539' }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('carries a viem request and its answer', async () => {
    const client = createPublicClient({ transport: httpTransport(url, { fetchFn: rpcFetch, retryCount: 0 }) });
    assert.equal(await client.getChainId(), 1337);
    const last = seen.at(-1);
    assert.equal(last?.method, 'POST');
    assert.equal(last?.contentType, 'application/json');
    assert.equal((JSON.parse(last?.body ?? '{}') as { method: string }).method, 'eth_chainId');
  });

  it('answers status, headers and text as fetch does', async () => {
    const res = await rpcFetch(`${url}/down`, { method: 'POST', body: '{}' });
    assert.equal(res.ok, false);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('Retry-After'), '7');
    assert.equal(await res.text(), 'busy');
  });

  it('reads a body that is not ASCII as UTF-8, whatever its chunks', async () => {
    const res = await rpcFetch(`${url}/utf8`, { method: 'POST', body: '{}' });
    const { error } = JSON.parse(await res.text()) as { error: { message: string } };
    assert.equal(error.message, `${'a'.repeat(1 << 20)}é ünïcödé`);
  });

  it('refuses a body larger than 10 MiB', async () => {
    await assert.rejects(rpcFetch(`${url}/huge`, { method: 'POST', body: '{}' }), /larger than 10485760 bytes/);
  });

  it('sends reads again on a new socket when the endpoint closed the kept-alive one as they went out', async () => {
    // The endpoint answers the first request of each connection and drops the connection at its second one.
    const requests = new Map<unknown, number>();
    let answered = 0;
    const closing = http.createServer((req, res) => {
      const count = (requests.get(req.socket) ?? 0) + 1;
      requests.set(req.socket, count);
      if (count > 1) {
        req.socket.destroy();
        return;
      }
      answered += 1;
      req.resume().on('end', () => res.end('{"jsonrpc":"2.0","id":1,"result":"0x1"}'));
    });
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`;
    const call = (method: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] });
    try {
      const reads = [call('eth_call'), `[${call('eth_blockNumber')},${call('eth_getLogs')}]`, call('eth_chainId')];
      for (const body of reads) {
        const res = await rpcFetch(target, { method: 'POST', body });
        assert.equal(await res.text(), '{"jsonrpc":"2.0","id":1,"result":"0x1"}');
      }
      assert.equal(answered, 3);
      assert.deepEqual([...requests.values()], [2, 2, 1], 'each reused connection dropped once, then not used again');
      // A raw transaction, alone or in a batch, is not sent twice: the endpoint may have received it.
      for (const body of [call('eth_sendRawTransaction'), `[${call('eth_call')},${call('eth_sendRawTransaction')}]`]) {
        requests.clear();
        await rpcFetch(target, { method: 'POST', body: call('eth_chainId') });
        await assert.rejects(rpcFetch(target, { method: 'POST', body }), { code: 'ECONNRESET' });
        assert.deepEqual([...requests.values()], [2], 'the reused connection dropped it, and it was not sent again');
      }
    } finally {
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    }
    // A connection dropped on its first request is the endpoint's failure: answered as such, not sent again.
    const dropping = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    let tries = 0;
    dropping.on('connection', () => {
      tries += 1;
    });
    try {
      const port = (dropping.address() as AddressInfo).port;
      await assert.rejects(rpcFetch(`http://127.0.0.1:${port}`, { method: 'POST', body: call('eth_call') }), {
        code: 'ECONNRESET',
      });
      assert.equal(tries, 1);
    } finally {
      await new Promise((resolve) => dropping.close(resolve));
    }
  });

  it('stops when its signal aborts', async () => {
    const started = Date.now();
    await assert.rejects(
      rpcFetch(`${url}/slow`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(100) }),
      (error: Error) => error.name === 'AbortError' || error.name === 'TimeoutError',
    );
    assert.ok(Date.now() - started < 1_500);
  });
});
