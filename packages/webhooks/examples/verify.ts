// Verify a delivery by hand, e.g. in a framework without a ready-made handler, and branch on failure codes.
// Run: node --import tsx verify.ts
import { generateSecret, sign, verify, WebhookVerificationError } from '@mountain/webhook-sdk';

const secret = generateSecret();
const rawBody = '{"type":"event_notifier.event","timestamp":"2025-01-02T03:04:05.000Z","data":{}}';
const headers = await sign({ id: 'msg_manual_1', body: rawBody, secret });

// 1. A genuine delivery: returns the parsed, typed payload.
const event = await verify(rawBody, headers, secret);
console.log(`Verified ${event.type}`);

// 2. A tampered body, a missing header and a replayed (old) delivery: each fails with its own code.
const tampered = rawBody.replace('2025', '2026');
const { 'webhook-signature': _, ...unsigned } = headers;
const replayed = await sign({ id: 'msg_manual_1', body: rawBody, secret, timestamp: new Date(Date.now() - 3_600_000) });
for (const [body, requestHeaders] of [
  [tampered, headers],
  [rawBody, unsigned],
  [rawBody, replayed],
] as const) {
  try {
    await verify(body, requestHeaders, secret);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(`Rejected: ${error.code} (${error.name})`);
  }
}
