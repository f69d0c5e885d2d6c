import { generateKeyPairSync, type KeyPairKeyObjectResult } from 'node:crypto';

const made = new Map<string, KeyPairKeyObjectResult>();

/**
 * The `index`-th RSA-2048 key pair of this process for `purpose`: made on first need, then handed out again to every
 * simulator the process starts. Making one costs 50–300 ms of CPU and a test process starts many simulators. Within a
 * simulator each API user still has a key of its own (its n-th user gets the n-th key) and the webhook key is not a
 * user's; two simulators share nothing else (API keys are random UUIDs, and each knows only its own users).
 */
export function processRsaKey(purpose: 'user' | 'webhook', index: number): KeyPairKeyObjectResult {
  const name = `${purpose}:${index}`;
  let pair = made.get(name);
  if (!pair) {
    pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    made.set(name, pair);
  }
  return pair;
}
