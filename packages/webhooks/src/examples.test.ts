// Runs every sample in examples/ the way the README tells readers to, and checks what it prints.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const examples = fileURLToPath(new URL('../examples/', import.meta.url));

async function runExample(file: string, args: string[] = []): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: examples,
    timeout: 60_000,
    env: { ...process.env, MOUNTAIN_WEBHOOK_SECRET: undefined },
  });
  return stdout.trim().split('\n');
}

const TRANSFER =
  'Transfer in block 42: {"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",' +
  '"to":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","value":"1000000000000000000"} (webhook-id msg_example_1)';

describe('examples', () => {
  for (const file of ['node-http.ts', 'express.ts', 'fastify.ts']) {
    test(`${file} --once receives a signed delivery over HTTP and answers 204`, async () => {
      const [listening, ...rest] = await runExample(file, ['--once']);
      assert.match(listening ?? '', /^Listening on http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
      assert.deepEqual(rest, [TRANSFER, 'Test delivery answered 204']);
    });
  }

  test('fetch.ts handles a signed Request and answers 204', async () => {
    assert.deepEqual(await runExample('fetch.ts'), [TRANSFER, 'Test delivery answered 204']);
  });

  test('verify.ts verifies one delivery and rejects three with their codes', async () => {
    assert.deepEqual(await runExample('verify.ts'), [
      'Verified event_notifier.event',
      'Rejected: NO_MATCHING_SIGNATURE (NoMatchingSignatureError)',
      'Rejected: MISSING_HEADER (MissingHeaderError)',
      'Rejected: TIMESTAMP_TOO_OLD (TimestampTooOldError)',
    ]);
  });
});
