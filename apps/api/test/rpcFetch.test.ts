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

  it('stops when its signal aborts', async () => {
    const started = Date.now();
    await assert.rejects(
      rpcFetch(`${url}/slow`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(100) }),
      (error: Error) => error.name === 'AbortError' || error.name === 'TimeoutError',
    );
    assert.ok(Date.now() - started < 1_500);
  });
});
