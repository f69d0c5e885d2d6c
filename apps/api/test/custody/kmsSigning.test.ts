import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type KmsSimulator, startKmsSimulator } from '@mountain/testkit/awsKms/startKmsSimulator.ts';
import { bytesToHex, recoverMessageAddress } from 'viem';
import { type AwsKmsCustody, createAwsKmsCustody } from '#api/wallets/awsKms/awsKmsCustody.ts';
import { SignerUnavailableError } from '#api/wallets/custody.ts';

describe('AWS KMS signing account: timeouts, concurrency and a failure amid many signatures', () => {
  let sim: KmsSimulator;
  let custody: AwsKmsCustody;
  let wallet: { id: number; address: string; keyArn: string };

  before(async () => {
    sim = await startKmsSimulator();
    custody = createAwsKmsCustody(
      {
        region: sim.region,
        endpoint: sim.url,
        credentials: sim.createUser(),
        deployment: 'test',
        signConcurrency: 4,
      },
      { retryBaseMs: 10, callTimeoutMs: 300 },
    );
    const key = await custody.provision(custody.aliasName('shared', 'testnet'), {}, undefined, async () => {});
    wallet = { id: 1, address: key.address, keyArn: key.arn };
  });
  after(async () => {
    await sim?.stop();
  });

  it('signs many messages at once, at most signConcurrency in flight, each recovering to the wallet', async () => {
    sim.faults.set({ latency: { ms: 40, action: 'Sign' } });
    const account = custody.account(wallet);
    const before = sim.succeeded.Sign ?? 0;
    const started = performance.now();
    const messages = Array.from({ length: 12 }, () => bytesToHex(randomBytes(16)));
    const signatures = await Promise.all(messages.map((m) => account.signMessage({ message: { raw: m } })));
    // 12 at 4 at a time, 40 ms each: three waves.
    assert.ok(performance.now() - started >= 3 * 40, 'no more than 4 Sign requests in flight');
    for (const [i, signature] of signatures.entries()) {
      const signer = await recoverMessageAddress({ message: { raw: messages[i] as `0x${string}` }, signature });
      assert.equal(signer, wallet.address);
    }
    assert.equal((sim.succeeded.Sign ?? 0) - before, 12);
    sim.faults.clear();
  });

  it('a Sign answered later than the call timeout is tried again, then the signature is unavailable', async () => {
    sim.faults.set({ latency: { ms: 1_000, action: 'Sign' } });
    const account = custody.account(wallet);
    const requests = sim.requests.Sign ?? 0;
    const started = performance.now();
    const error = await account.signMessage({ message: 'late' }).catch((e: unknown) => e);
    assert.ok(error instanceof SignerUnavailableError, String(error));
    assert.match(error.message, /AWS KMS could not sign .*did not answer Sign/);
    assert.equal((sim.requests.Sign ?? 0) - requests, 4, 'four tries');
    assert.ok(performance.now() - started < 3_000, 'each try cut at 300 ms');
    sim.faults.clear();
  });

  it('when a Sign fails, the signatures waiting for their turn fail at once with its error, without asking KMS', async () => {
    const account = custody.account(wallet);
    sim.faults.set({ latency: { ms: 20, action: 'Sign' }, serverError: { count: 1_000, action: 'Sign', status: 500 } });
    const requests = sim.requests.Sign ?? 0;
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => account.signMessage({ message: `round ${i}` })),
    );
    assert.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof SignerUnavailableError));
    // The first four in flight went through their four tries each; the other 36 never reached KMS.
    assert.equal((sim.requests.Sign ?? 0) - requests, 4 * 4);
    sim.faults.clear();
    // Signatures asked for after the failure are asked of KMS again.
    const signature = await account.signMessage({ message: 'after' });
    assert.equal(await recoverMessageAddress({ message: 'after', signature }), wallet.address);
  });
});
