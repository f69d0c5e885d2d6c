import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { timingSafeEqual } from './encoding.ts';
import { InvalidSecretError } from './errors.ts';
import { generateSecret, hmacSha256Base64, webCryptoHmacSha256Base64 } from './secret.ts';
import { sign } from './sign.ts';
import { OTHER_SECRET, SECRET } from './testing.ts';
import { verify } from './verify.ts';

describe('sign', () => {
  test('signs base64(HMAC-SHA256(key, "id.timestamp.body")) with the base64-decoded key, as node:crypto computes it', async () => {
    const [id, timestamp, body] = ['msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'];
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    assert.deepEqual(await sign({ id, timestamp, body, secret: SECRET }), {
      'webhook-id': id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': `v1,${expected}`,
    });
  });

  test('a Date timestamp is truncated to Unix seconds; the default is now', async () => {
    const fromDate = await sign({ id: 'a', timestamp: new Date(1614265330_999), body: '{}', secret: SECRET });
    const fromNumber = await sign({ id: 'a', timestamp: 1614265330, body: '{}', secret: SECRET });
    assert.deepEqual(fromDate, fromNumber);

    const before = Math.floor(Date.now() / 1000);
    const now = Number((await sign({ id: 'a', body: '{}', secret: SECRET }))['webhook-timestamp']);
    const after = Math.floor(Date.now() / 1000);
    assert.ok(Number.isInteger(now) && now >= before && now <= after);
  });

  test('a UTF-8 string body and its bytes sign the same', async () => {
    const text = '{"name":"Grüße, 世界 🌍"}';
    const asText = await sign({ id: 'a', timestamp: 1, body: text, secret: SECRET });
    const asBytes = await sign({ id: 'a', timestamp: 1, body: new TextEncoder().encode(text), secret: SECRET });
    assert.deepEqual(asText, asBytes);
  });

  test('several secrets give one space-separated v1 entry each, in order', async () => {
    const both = await sign({ id: 'a', timestamp: 1, body: '{}', secret: [SECRET, OTHER_SECRET] });
    const first = await sign({ id: 'a', timestamp: 1, body: '{}', secret: SECRET });
    const second = await sign({ id: 'a', timestamp: 1, body: '{}', secret: OTHER_SECRET });
    assert.equal(both['webhook-signature'], `${first['webhook-signature']} ${second['webhook-signature']}`);
    assert.notEqual(first['webhook-signature'], second['webhook-signature']);
  });

  test('a bad secret throws InvalidSecretError', async () => {
    await assert.rejects(sign({ id: 'a', body: '{}', secret: 'secret' }), InvalidSecretError);
    await assert.rejects(sign({ id: 'a', body: '{}', secret: [SECRET, 'whsec_***'] }), InvalidSecretError);
  });

  test('unknown or invalid parameters throw TypeErrors', async () => {
    await assert.rejects(sign({ id: 'a', body: '{}', secret: SECRET, tolerance: 5 } as never), {
      name: 'TypeError',
      message: /sign: unknown option "tolerance"/,
    });
    await assert.rejects(sign({ id: '', body: '{}', secret: SECRET }), { name: 'TypeError', message: /id/ });
    await assert.rejects(sign({ id: 'a', body: { a: 1 } as never, secret: SECRET }), {
      name: 'TypeError',
      message: /body/,
    });
    await assert.rejects(sign({ id: 'a', body: '{}', secret: [] }), { name: 'TypeError', message: /secret/ });
    await assert.rejects(sign({ id: 'a', body: '{}', secret: SECRET, timestamp: 1.5 }), { name: 'TypeError' });
    await assert.rejects(sign({ id: 'a', body: '{}', secret: SECRET, timestamp: new Date(Number.NaN) }), {
      name: 'TypeError',
    });
  });
});

describe('generateSecret', () => {
  test('returns whsec_ and the base64 of 32 random bytes, different each time', () => {
    const secrets = new Set(Array.from({ length: 20 }, generateSecret));
    assert.equal(secrets.size, 20);
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(atob(secret.slice('whsec_'.length)).length, 32);
    }
  });

  test('a generated secret signs and verifies', async () => {
    const secret = generateSecret();
    const headers = await sign({ id: 'a', body: '{"ok":true}', secret });
    assert.deepEqual(await verify('{"ok":true}', headers, secret), { ok: true });
  });
});

describe('timingSafeEqual', () => {
  test('compares equal-length strings by content and different lengths as unequal', () => {
    assert.equal(timingSafeEqual('abc', 'abc'), true);
    assert.equal(timingSafeEqual('abc', 'abd'), false);
    assert.equal(timingSafeEqual('xbc', 'abc'), false);
    assert.equal(timingSafeEqual('abc', 'abcd'), false);
    assert.equal(timingSafeEqual('', ''), true);
  });
});

describe('HMAC-SHA256 on Node and through WebCrypto', () => {
  test('gives the same signature both ways, for keys and messages of every length', async () => {
    for (let i = 0; i < 50; i++) {
      const key = crypto.getRandomValues(new Uint8Array(1 + i * 3));
      const message = crypto.getRandomValues(new Uint8Array(i * 37));
      assert.equal(await hmacSha256Base64(key, message), await webCryptoHmacSha256Base64(key, message));
    }
  });
});
