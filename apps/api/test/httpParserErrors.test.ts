// Requests Node's HTTP parser refuses before any route sees them (malformed headers, unknown methods, oversized
// heads, ambiguous framing) still get the API's error shape, sent over a raw socket.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type RawRequest, sendRaw } from '@mountain/testkit/rawHttp.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';

describe('requests the HTTP parser refuses get the error shape too', () => {
  let h: Harness;
  let key: string;
  let port: number;
  before(async () => {
    h = await createHarness();
    key = (await h.project()).apiKey;
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = (h.app.server.address() as { port: number }).port;
  });
  after(() => h.close());

  const send = async (request: RawRequest) => {
    const res = await sendRaw(port, request);
    return { status: res.status, body: JSON.parse(res.body.toString('utf8')) };
  };
  const contracts = '/public-api/v3/contract';

  const malformed: [string, RawRequest][] = [
    ['a header name with a space', { method: 'GET', target: contracts, headers: [['x odd', '1']] }],
    ['a NUL in a header value', { method: 'GET', target: contracts, headers: [['x-odd', 'a\u0000b']] }],
    ['an unknown method', { method: 'BREW', target: contracts, headers: [] }],
    ['headers over 16 KB', { method: 'GET', target: contracts, headers: [['x-padding', 'p'.repeat(20_000)]] }],
    ['a URL over 16 KB', { method: 'GET', target: `${contracts}?q=${'x'.repeat(20_000)}`, headers: [] }],
    [
      'both Content-Length and Transfer-Encoding',
      {
        method: 'POST',
        target: '/public-api/v3/contract/import-contract',
        rawFraming: true,
        headers: [
          ['host', '127.0.0.1'],
          ['content-length', '2'],
          ['transfer-encoding', 'chunked'],
        ],
        body: Buffer.from('0\r\n\r\n'),
      },
    ],
  ];
  for (const [what, request] of malformed) {
    it(`${what} → 400 VALIDATION_FAILED naming the request`, async () => {
      const res = await send({ ...request, headers: [...request.headers, ['x-api-key', key]] });
      assert.equal(res.status, 400);
      h.validator.assertError(res.body);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.equal(res.body.details[0].field, 'request');
    });
  }

  it('a path that cannot be decoded → 400 VALIDATION_FAILED naming the request, with the security headers', async () => {
    for (const target of [`${contracts}/%ZZ`, '/public-api/v3/transaction/get-transaction/%ZZ', '/%E0%A4%A']) {
      const raw = await sendRaw(port, { method: 'GET', target, headers: [['x-api-key', key]] });
      assert.equal(raw.status, 400, target);
      const body = JSON.parse(raw.body.toString('utf8'));
      h.validator.assertError(body);
      assert.equal(body.code, 'VALIDATION_FAILED', target);
      assert.equal(body.details[0].field, 'request', target);
      assert.equal(raw.headers['x-content-type-options'], 'nosniff', target);
    }
  });

  it('an HTTP/1.1 request without Host → 400 naming headers.host', async () => {
    const res = await send({
      method: 'GET',
      target: contracts,
      rawFraming: true,
      headers: [
        ['connection', 'close'],
        ['x-api-key', key],
      ],
    });
    assert.equal(res.status, 400);
    h.validator.assertError(res.body);
    assert.deepEqual(
      res.body.details.map((d: { field: string }) => d.field),
      ['headers.host'],
    );
  });

  it('an unknown Expect is ignored and the request served (not an empty 417)', async () => {
    const res = await send({
      method: 'GET',
      target: contracts,
      headers: [
        ['expect', 'something-else'],
        ['x-api-key', key],
      ],
    });
    assert.equal(res.status, 200);
    h.validator.assertResponse('get-contracts', 200, res.body);
  });
});

describe('a request that is not sent in time', () => {
  let h: Harness;
  let port: number;

  before(async () => {
    h = await createHarness({ requestTimeoutMs: 1_000 });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = (h.app.server.address() as { port: number }).port;
  });
  after(async () => {
    await h?.close();
  });

  it('a body dripped a byte at a time is cut off after the request timeout, and the server goes on', async () => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => {}); // the server closing while a byte is on its way (EPIPE) is the point
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = Date.now();
    socket.write(
      [
        'POST /public-api/v3/contract/import-contract HTTP/1.1',
        `host: 127.0.0.1:${port}`,
        'content-type: application/json',
        'content-length: 1000',
        '',
        '',
      ].join('\r\n'),
    );
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write('{', () => sent++);
    }, 200);
    try {
      await new Promise((resolve) => socket.once('close', resolve));
    } finally {
      clearInterval(drip);
    }
    const elapsed = Date.now() - started;
    // The whole body would take 200 s at this pace; the timeout (1 s, looked at every second) ends it far sooner.
    assert.ok(elapsed < 5_000, `closed after ${elapsed} ms`);
    assert.ok(sent < 1000);
    const health = await sendRaw(port, { method: 'GET', target: '/healthz', headers: [] });
    assert.equal(health.status, 200);
  });
});
