import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import {
  InvalidPayloadError,
  InvalidSecretError,
  InvalidTimestampError,
  MissingHeaderError,
  NoMatchingSignatureError,
  TimestampTooNewError,
  TimestampTooOldError,
  WebhookVerificationError,
} from './errors.ts';
import { sign } from './sign.ts';
import { OTHER_SECRET, oddlyFormattedBody, SECRET, sampleEvent } from './testing.ts';
import { type VerifyOptions, verify } from './verify.ts';

const NOW = 1_700_000_000;
const clock = { now: () => NOW * 1000 };
const body = JSON.stringify(sampleEvent());

async function headersFor(payload: string | Uint8Array = body, timestamp = NOW, secret: string | string[] = SECRET) {
  return sign({ id: 'msg_1', timestamp, body: payload, secret });
}

/** Asserts that `promise` rejects with `type`, a WebhookVerificationError with the given code and name. */
async function rejectsWith(promise: Promise<unknown>, type: abstract new (...args: never[]) => Error, code: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    assert.ok(error instanceof WebhookVerificationError);
    assert.ok(error instanceof Error);
    assert.equal(error.code, code);
    assert.equal(error.name, type.name);
    return true;
  });
}

describe('verify: success', () => {
  test('returns the parsed payload of a string body', async () => {
    const event = await verify(body, await headersFor(), SECRET, clock);
    assert.deepEqual(event, sampleEvent());
    assert.equal(event.data.decodedLog.value, sampleEvent().data.decodedLog.value);
  });

  test('accepts the body as bytes, signed as bytes', async () => {
    const bytes = new TextEncoder().encode(body);
    assert.deepEqual(await verify(bytes, await headersFor(bytes), SECRET, clock), sampleEvent());
  });

  test('verifies the raw bytes, not a re-serialisation: unusual whitespace and key order still verify', async () => {
    const raw = oddlyFormattedBody();
    const headers = await headersFor(raw);
    assert.deepEqual(await verify(raw, headers, SECRET, clock), sampleEvent());
    // The trap the handlers avoid: the same JSON re-serialised no longer matches.
    await rejectsWith(
      verify(JSON.stringify(JSON.parse(raw)), headers, SECRET, clock),
      NoMatchingSignatureError,
      'NO_MATCHING_SIGNATURE',
    );
  });

  test('reads headers from a Headers instance, Node IncomingHttpHeaders and mixed-case plain objects', async () => {
    const signed = await headersFor();
    assert.ok(await verify(body, new Headers(signed), SECRET, clock));
    const node: IncomingHttpHeaders = { ...signed, host: 'example.com' };
    assert.ok(await verify(body, node, SECRET, clock));
    const mixed = {
      'Webhook-Id': signed['webhook-id'],
      'WEBHOOK-TIMESTAMP': signed['webhook-timestamp'],
      'Webhook-Signature': signed['webhook-signature'],
    };
    assert.ok(await verify(body, mixed, SECRET, clock));
    assert.ok(await verify(body, { ...signed, 'webhook-signature': [signed['webhook-signature']] }, SECRET, clock));
  });
});

describe('verify: one error per failure', () => {
  for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
    test(`missing ${header}`, async () => {
      const headers: Record<string, string> = { ...(await headersFor()) };
      delete headers[header];
      await rejectsWith(verify(body, headers, SECRET, clock), MissingHeaderError, 'MISSING_HEADER');
      await assert.rejects(verify(body, headers, SECRET, clock), {
        header,
        message: `Missing required header ${header}`,
      });
      await assert.rejects(verify(body, { ...headers, [header]: '  ' }, SECRET, clock), { header });
    });
  }

  for (const value of ['abc', '1700000000.5', '-1700000000', '0x6553f100', '1e9', '99999999999999999999']) {
    test(`invalid timestamp ${JSON.stringify(value)}`, async () => {
      const headers = { ...(await headersFor()), 'webhook-timestamp': value };
      await rejectsWith(verify(body, headers, SECRET, clock), InvalidTimestampError, 'INVALID_TIMESTAMP');
    });
  }

  test('timestamp too old', async () => {
    const headers = await headersFor(body, NOW - 301);
    await rejectsWith(verify(body, headers, SECRET, clock), TimestampTooOldError, 'TIMESTAMP_TOO_OLD');
    await assert.rejects(verify(body, headers, SECRET, clock), { timestamp: NOW - 301, now: NOW, tolerance: 300 });
  });

  test('timestamp too new', async () => {
    const headers = await headersFor(body, NOW + 301);
    await rejectsWith(verify(body, headers, SECRET, clock), TimestampTooNewError, 'TIMESTAMP_TOO_NEW');
  });

  test('no matching signature: wrong secret', async () => {
    const headers = await headersFor(body, NOW, OTHER_SECRET);
    await rejectsWith(verify(body, headers, SECRET, clock), NoMatchingSignatureError, 'NO_MATCHING_SIGNATURE');
  });

  test('no matching signature: body, id or timestamp changed after signing', async () => {
    const headers = await headersFor();
    const tampered = body.replace('"logIndex":3', '"logIndex":4');
    assert.notEqual(tampered, body);
    await rejectsWith(verify(tampered, headers, SECRET, clock), NoMatchingSignatureError, 'NO_MATCHING_SIGNATURE');
    await rejectsWith(
      verify(body, { ...headers, 'webhook-id': 'msg_2' }, SECRET, clock),
      NoMatchingSignatureError,
      'NO_MATCHING_SIGNATURE',
    );
    await rejectsWith(
      verify(body, { ...headers, 'webhook-timestamp': String(NOW + 1) }, SECRET, clock),
      NoMatchingSignatureError,
      'NO_MATCHING_SIGNATURE',
    );
  });

  test('no matching signature: only other versions or malformed entries', async () => {
    const valid = (await headersFor())['webhook-signature'].slice('v1,'.length);
    for (const signature of [`v2,${valid}`, valid, 'v1,', 'v1', `v1a,${valid}`, `v1,${valid.slice(0, -2)}`]) {
      const headers = { ...(await headersFor()), 'webhook-signature': signature };
      await rejectsWith(verify(body, headers, SECRET, clock), NoMatchingSignatureError, 'NO_MATCHING_SIGNATURE');
    }
  });

  for (const [label, secret] of [
    ['without the whsec_ prefix', SECRET.slice('whsec_'.length)],
    ['not base64 after the prefix', 'whsec_not*base64!'],
    ['URL-safe base64', 'whsec_ab-_cd'],
    ['an empty key', 'whsec_'],
    ['not a string', 42 as unknown as string],
  ] as const) {
    test(`bad secret format: ${label}`, async () => {
      await rejectsWith(verify(body, await headersFor(), secret, clock), InvalidSecretError, 'INVALID_SECRET');
    });
  }

  for (const [label, payload] of [
    ['not JSON', 'event=transfer&value=1'],
    ['empty', ''],
    ['a JSON array', '[1,2,3]'],
    ['JSON null', 'null'],
    ['not UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ] as const) {
    test(`invalid JSON payload: ${label}, correctly signed`, async () => {
      const headers = await headersFor(payload);
      await rejectsWith(verify(payload, headers, SECRET, clock), InvalidPayloadError, 'INVALID_PAYLOAD');
    });
  }
});

describe('verify: secret rotation', () => {
  test('a header with the old and the new signature verifies with either secret', async () => {
    const headers = await headersFor(body, NOW, [SECRET, OTHER_SECRET]);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.deepEqual(await verify(body, headers, SECRET, clock), sampleEvent());
    assert.deepEqual(await verify(body, headers, OTHER_SECRET, clock), sampleEvent());
  });

  test('one invalid and one valid v1 entry, in either order, verify', async () => {
    const valid = (await headersFor())['webhook-signature'];
    const invalid = (await headersFor(body, NOW, OTHER_SECRET))['webhook-signature'];
    for (const signature of [`${invalid} ${valid}`, `${valid} ${invalid}`, `v2,abc ${valid}`, `${invalid}, ${valid}`]) {
      const headers = { ...(await headersFor()), 'webhook-signature': signature };
      assert.ok(await verify(body, headers, SECRET, clock), signature);
    }
  });

  test('two signatures from other secrets do not verify', async () => {
    const headers = await headersFor(body, NOW, [OTHER_SECRET, 'whsec_dGhpcmQ=']);
    await rejectsWith(verify(body, headers, SECRET, clock), NoMatchingSignatureError, 'NO_MATCHING_SIGNATURE');
  });
});

describe('verify: tolerance boundaries', () => {
  /** Accepts a signature `tolerance` seconds old or new; refuses one a second older or newer than that. */
  async function assertBoundaries(options: VerifyOptions, tolerance: number) {
    assert.ok(await verify(body, await headersFor(body, NOW - tolerance), SECRET, options));
    assert.ok(await verify(body, await headersFor(body, NOW + tolerance), SECRET, options));
    await rejectsWith(
      verify(body, await headersFor(body, NOW - tolerance - 1), SECRET, options),
      TimestampTooOldError,
      'TIMESTAMP_TOO_OLD',
    );
    await rejectsWith(
      verify(body, await headersFor(body, NOW + tolerance + 1), SECRET, options),
      TimestampTooNewError,
      'TIMESTAMP_TOO_NEW',
    );
  }

  test('exactly the default tolerance (300 s) in either direction is accepted; one second more is not', async () => {
    await assertBoundaries(clock, 300);
  });

  test('the receiver clock is truncated to whole seconds', async () => {
    const late = { now: () => (NOW + 300) * 1000 + 999 };
    assert.ok(await verify(body, await headersFor(body, NOW), SECRET, late));
  });

  test('a custom tolerance moves both boundaries', async () => {
    await assertBoundaries({ ...clock, tolerance: 10 }, 10);
  });

  test('tolerance 0 accepts only the current second', async () => {
    const options = { ...clock, tolerance: 0 };
    assert.ok(await verify(body, await headersFor(body, NOW), SECRET, options));
    await rejectsWith(
      verify(body, await headersFor(body, NOW - 1), SECRET, options),
      TimestampTooOldError,
      'TIMESTAMP_TOO_OLD',
    );
  });

  test('without a clock option, the real clock is used', async () => {
    const headers = await sign({ id: 'msg_now', body, secret: SECRET });
    assert.deepEqual(await verify(body, headers, SECRET), sampleEvent());
    await rejectsWith(
      verify(body, await headersFor(body, 1_000_000_000), SECRET),
      TimestampTooOldError,
      'TIMESTAMP_TOO_OLD',
    );
  });
});

describe('verify: programmer errors are TypeErrors, not verification failures', () => {
  test('unknown or invalid options throw', async () => {
    const headers = await headersFor();
    await assert.rejects(verify(body, headers, SECRET, { tolerence: 10 } as never), {
      name: 'TypeError',
      message: /verify: unknown option "tolerence"; allowed: tolerance, now/,
    });
    await assert.rejects(verify(body, headers, SECRET, { tolerance: -1 }), { name: 'TypeError' });
    await assert.rejects(verify(body, headers, SECRET, { tolerance: Number.NaN }), { name: 'TypeError' });
    await assert.rejects(verify(body, headers, SECRET, { now: 5 as never }), { name: 'TypeError' });
  });

  test('a parsed body instead of the raw one throws a TypeError that says why', async () => {
    await assert.rejects(verify(JSON.parse(body), await headersFor(), SECRET, clock), {
      name: 'TypeError',
      message: /raw request body.*body parser/,
    });
  });
});

describe('verify through a secret rotation', () => {
  const NEW_SECRET = 'whsec_bmV3IHNlY3JldCBvZiB0aGUgcm90YXRpb24gdGVzdHM=';

  test('signed with both during the grace period: a receiver knowing only the old, or only the new, verifies', async () => {
    const headers = await headersFor(body, NOW, [NEW_SECRET, SECRET]);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.deepEqual(await verify(body, headers, SECRET, clock), sampleEvent());
    assert.deepEqual(await verify(body, headers, NEW_SECRET, clock), sampleEvent());
    await rejectsWith(verify(body, headers, OTHER_SECRET, clock), NoMatchingSignatureError, 'NO_MATCHING_SIGNATURE');
  });

  test('a receiver rolling out the new secret may list both: either signature verifies', async () => {
    const before = await headersFor(body, NOW, SECRET);
    const after = await headersFor(body, NOW, NEW_SECRET);
    for (const headers of [before, after]) {
      assert.deepEqual(await verify(body, headers, [NEW_SECRET, SECRET], clock), sampleEvent());
    }
    await rejectsWith(
      verify(body, before, [NEW_SECRET, OTHER_SECRET], clock),
      NoMatchingSignatureError,
      'NO_MATCHING_SIGNATURE',
    );
    await assert.rejects(verify(body, before, [], clock), InvalidSecretError);
    await assert.rejects(verify(body, before, [SECRET, 'not-a-secret'], clock), InvalidSecretError);
  });
});
