// Interoperability with the reference `standardwebhooks` library: whatever one signs, the other verifies.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { NoMatchingSignatureError } from './errors.ts';
import { generateSecret } from './secret.ts';
import { sign } from './sign.ts';
import { OTHER_SECRET, oddlyFormattedBody, SECRET, sampleEvent } from './testing.ts';
import { verify } from './verify.ts';

const SECRETS = [
  SECRET,
  OTHER_SECRET,
  generateSecret(),
  generateSecret(),
  // A 64-byte key, the longest the specification recommends.
  `whsec_${Buffer.alloc(64, 0xa7).toString('base64')}`,
];

const BODIES: Record<string, string> = {
  'compact event': JSON.stringify(sampleEvent()),
  'oddly formatted event': oddlyFormattedBody(),
  'unicode: accents, CJK, RTL, emoji, combining marks': JSON.stringify({
    name: 'Grüße — 世界 — مرحبا — 🏔️🚀 — e\u0301',
    note: 'zero-width\u200bjoiner, BOM-like \ufeff inside',
  }),
  'unicode written as escapes': '{"symbol":"\\u00e9\\ud83d\\ude80"}',
  'large body': JSON.stringify({
    logs: Array.from({ length: 2000 }, (_, i) => ({ i, value: `${10n ** 30n + BigInt(i)}` })),
  }),
};

const MSG_ID = 'msg_2kXo1W3r8d7cTqZ';

describe('interoperability with the standardwebhooks library', () => {
  for (const [label, body] of Object.entries(BODIES)) {
    test(`this SDK signs, standardwebhooks verifies: ${label}`, async () => {
      for (const secret of SECRETS) {
        const headers = await sign({ id: MSG_ID, body, secret });
        assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
        // Signed as bytes, verified as a Buffer: the same signature.
        const bytesHeaders = await sign({
          id: MSG_ID,
          body: Buffer.from(body),
          secret,
          timestamp: Number(headers['webhook-timestamp']),
        });
        assert.deepEqual(bytesHeaders, headers);
        assert.deepEqual(new Webhook(secret).verify(Buffer.from(body), { ...bytesHeaders }), JSON.parse(body));
      }
    });

    test(`standardwebhooks signs, this SDK verifies: ${label}`, async () => {
      for (const secret of SECRETS) {
        const timestamp = new Date();
        const headers = {
          'webhook-id': MSG_ID,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(MSG_ID, timestamp, body),
        };
        assert.deepEqual(await verify(body, headers, secret), JSON.parse(body));
        assert.deepEqual(await verify(new TextEncoder().encode(body), new Headers(headers), secret), JSON.parse(body));
      }
    });
  }

  test('rotation: standardwebhooks verifies a header signed with two secrets under each of them', async () => {
    const body = BODIES['compact event'] as string;
    const headers = await sign({ id: MSG_ID, body, secret: [SECRET, OTHER_SECRET] });
    assert.deepEqual(new Webhook(SECRET).verify(body, { ...headers }), JSON.parse(body));
    assert.deepEqual(new Webhook(OTHER_SECRET).verify(body, { ...headers }), JSON.parse(body));
  });

  test('rotation: this SDK verifies a header joining two standardwebhooks signatures', async () => {
    const body = BODIES['compact event'] as string;
    const timestamp = new Date();
    const signature = [OTHER_SECRET, SECRET]
      .map((secret) => new Webhook(secret).sign(MSG_ID, timestamp, body))
      .join(' ');
    const headers = {
      'webhook-id': MSG_ID,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    assert.deepEqual(await verify(body, headers, SECRET), JSON.parse(body));
  });

  test('a signature under another secret is rejected in both directions', async () => {
    const body = BODIES['compact event'] as string;
    const ours = await sign({ id: MSG_ID, body, secret: SECRET });
    assert.throws(() => new Webhook(OTHER_SECRET).verify(body, { ...ours }), /No matching signature/);

    const timestamp = new Date();
    const theirs = {
      'webhook-id': MSG_ID,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign(MSG_ID, timestamp, body),
    };
    await assert.rejects(verify(body, theirs, OTHER_SECRET), NoMatchingSignatureError);
  });
});
