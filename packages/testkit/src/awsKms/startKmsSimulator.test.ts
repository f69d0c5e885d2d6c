import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DescribeKeyCommand,
  DisableKeyCommand,
  EnableKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  ListAliasesCommand,
  ListResourceTagsCommand,
  ScheduleKeyDeletionCommand,
  SignCommand,
  TagResourceCommand,
} from '@aws-sdk/client-kms';
import { SECP256K1_N } from './ecKey.ts';
import { startKmsSimulatorProcess } from './simulatorProcess.ts';
import { type KmsSimulator, startKmsSimulator } from './startKmsSimulator.ts';

/** The official SDK pointed at the simulator, unchanged but for its endpoint; no retries, to see each answer. */
function client(sim: KmsSimulator, credentials: { accessKeyId: string; secretAccessKey: string }, maxAttempts = 1) {
  return new KMSClient({ region: sim.region, endpoint: sim.url, credentials, maxAttempts });
}

/** The r and s of a DER Ecdsa-Sig-Value. */
function rs(der: Uint8Array): { r: bigint; s: bigint } {
  const bytes = Buffer.from(der);
  assert.equal(bytes[0], 0x30);
  const rLen = bytes[3] as number;
  const r = BigInt(`0x${bytes.subarray(4, 4 + rLen).toString('hex')}`);
  const sLen = bytes[5 + rLen] as number;
  const s = BigInt(`0x${bytes.subarray(6 + rLen, 6 + rLen + sLen).toString('hex')}`);
  return { r, s };
}

async function rejection(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  assert.fail('expected a refusal');
}

describe('AWS KMS simulator, through the official @aws-sdk/client-kms', () => {
  let sim: KmsSimulator;
  let kms: KMSClient;
  let user: { accessKeyId: string; secretAccessKey: string };

  before(async () => {
    sim = await startKmsSimulator();
    user = sim.createUser();
    kms = client(sim, user);
  });
  after(async () => {
    kms?.destroy();
    await sim?.stop();
  });

  const newKey = async (tags: { TagKey: string; TagValue: string }[] = []) =>
    (await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', Tags: tags })))
      .KeyMetadata;

  it('creates a secp256k1 signing key, names it by an alias, and describes it by id, ARN, alias and alias ARN', async () => {
    const key = await newKey([{ TagKey: 'project', TagValue: '7' }]);
    assert.ok(key?.KeyId && key.Arn);
    assert.equal(key.Arn, `arn:aws:kms:us-east-1:111122223333:key/${key.KeyId}`);
    assert.equal(key.KeySpec, 'ECC_SECG_P256K1');
    assert.equal(key.KeyUsage, 'SIGN_VERIFY');
    assert.equal(key.KeyState, 'Enabled');
    assert.equal(key.Enabled, true);
    assert.deepEqual(key.SigningAlgorithms, ['ECDSA_SHA_256']);
    assert.ok(key.CreationDate instanceof Date);
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/sim-test-a', TargetKeyId: key.KeyId }));
    const aliasArn = 'arn:aws:kms:us-east-1:111122223333:alias/sim-test-a';
    for (const id of [key.KeyId, key.Arn, 'alias/sim-test-a', aliasArn]) {
      const described = await kms.send(new DescribeKeyCommand({ KeyId: id }));
      assert.equal(described.KeyMetadata?.KeyId, key.KeyId, id);
    }
    const listed = await kms.send(new ListAliasesCommand({ KeyId: key.KeyId }));
    assert.deepEqual(
      listed.Aliases?.map((a) => [a.AliasName, a.AliasArn, a.TargetKeyId]),
      [['alias/sim-test-a', aliasArn, key.KeyId]],
    );
    const again = await rejection(
      kms.send(new CreateAliasCommand({ AliasName: 'alias/sim-test-a', TargetKeyId: key.KeyId })),
    );
    assert.equal(again.name, 'AlreadyExistsException');
    assert.equal(again.message, `An alias with the name ${aliasArn} already exists`);
    await kms.send(new TagResourceCommand({ KeyId: key.KeyId, Tags: [{ TagKey: 'deployment', TagValue: 'test' }] }));
    const tags = await kms.send(new ListResourceTagsCommand({ KeyId: key.KeyId }));
    assert.deepEqual(
      tags.Tags?.map((t) => `${t.TagKey}=${t.TagValue}`),
      ['project=7', 'deployment=test'],
    );
    const missing = await rejection(kms.send(new DescribeKeyCommand({ KeyId: 'alias/none-such' })));
    assert.equal(missing.name, 'NotFoundException');
    assert.equal(missing.message, 'Alias arn:aws:kms:us-east-1:111122223333:alias/none-such is not found.');
  });

  it('its public key is a DER SubjectPublicKeyInfo on secp256k1, and its DER signatures verify with it, high s or low', async () => {
    const key = await newKey();
    const answer = await kms.send(new GetPublicKeyCommand({ KeyId: key?.KeyId }));
    assert.equal(answer.KeySpec, 'ECC_SECG_P256K1');
    assert.deepEqual(answer.SigningAlgorithms, ['ECDSA_SHA_256']);
    const publicKey = createPublicKey({
      key: Buffer.from(answer.PublicKey as Uint8Array),
      format: 'der',
      type: 'spki',
    });
    assert.equal(publicKey.asymmetricKeyDetails?.namedCurve, 'secp256k1');
    let high = 0;
    for (let i = 0; i < 24; i++) {
      const message = Buffer.from(`message ${i}`);
      const digest = createHash('sha256').update(message).digest();
      const signed = await kms.send(
        new SignCommand({
          KeyId: key?.KeyId,
          Message: digest,
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
      assert.equal(signed.KeyId, key?.Arn);
      assert.equal(signed.SigningAlgorithm, 'ECDSA_SHA_256');
      const der = Buffer.from(signed.Signature as Uint8Array);
      assert.ok(verify('sha256', message, publicKey, der), `signature ${i} verifies`);
      if (rs(der).s > SECP256K1_N / 2n) high++;
    }
    assert.ok(high > 0 && high < 24, `KMS leaves s as it comes: ${high} of 24 high`);
    const raw = await kms.send(
      new SignCommand({ KeyId: key?.KeyId, Message: Buffer.from('raw'), SigningAlgorithm: 'ECDSA_SHA_256' }),
    );
    assert.ok(verify('sha256', Buffer.from('raw'), publicKey, Buffer.from(raw.Signature as Uint8Array)));
    const short = await rejection(
      kms.send(
        new SignCommand({
          KeyId: key?.KeyId,
          Message: Buffer.alloc(20),
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      ),
    );
    assert.equal(short.name, 'ValidationException');
  });

  it('a disabled key and a key pending deletion refuse to sign as KMS does; an enabled one signs again', async () => {
    const key = await newKey();
    const sign = () =>
      kms.send(
        new SignCommand({
          KeyId: key?.KeyId,
          Message: Buffer.alloc(32, 1),
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
    await kms.send(new DisableKeyCommand({ KeyId: key?.KeyId }));
    const disabled = await rejection(sign());
    assert.equal(disabled.name, 'DisabledException');
    assert.equal(disabled.message, `${key?.Arn} is disabled.`);
    assert.equal(disabled.$metadata?.httpStatusCode, 400);
    await kms.send(new EnableKeyCommand({ KeyId: key?.KeyId }));
    await sign();
    const scheduled = await kms.send(new ScheduleKeyDeletionCommand({ KeyId: key?.KeyId, PendingWindowInDays: 7 }));
    assert.equal(scheduled.KeyState, 'PendingDeletion');
    const pending = await rejection(sign());
    assert.equal(pending.name, 'KMSInvalidStateException');
    assert.equal(pending.message, `${key?.Arn} is pending deletion.`);
    const enable = await rejection(kms.send(new EnableKeyCommand({ KeyId: key?.KeyId })));
    assert.equal(enable.name, 'KMSInvalidStateException');
  });

  it('refuses a wrong secret, an unknown access key and a denied action as AWS does', async () => {
    const wrongSecret = client(sim, { accessKeyId: user.accessKeyId, secretAccessKey: `${user.secretAccessKey}x` });
    const bad = await rejection(wrongSecret.send(new ListAliasesCommand({})));
    assert.equal(bad.name, 'InvalidSignatureException');
    assert.equal(
      bad.message,
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
    assert.equal(bad.$metadata?.httpStatusCode, 400);
    const unknown = client(sim, { accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: user.secretAccessKey });
    const unrecognized = await rejection(unknown.send(new ListAliasesCommand({})));
    assert.equal(unrecognized.name, 'UnrecognizedClientException');
    assert.equal(unrecognized.message, 'The security token included in the request is invalid.');
    const otherRegion = new KMSClient({ region: 'eu-west-1', endpoint: sim.url, credentials: user, maxAttempts: 1 });
    const scoped = await rejection(otherRegion.send(new ListAliasesCommand({})));
    assert.equal(scoped.name, 'InvalidSignatureException');
    assert.match(scoped.message, /scoped to a valid region/);
    const limited = sim.createUser({ name: 'signer-only', deniedActions: ['CreateKey'] });
    const denied = await rejection(
      client(sim, limited).send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' })),
    );
    assert.equal(denied.name, 'AccessDeniedException');
    assert.equal(
      denied.message,
      'User: arn:aws:iam::111122223333:user/signer-only is not authorized to perform: kms:CreateKey on resource: arn:aws:kms:us-east-1:111122223333:* because no identity-based policy allows the kms:CreateKey action',
    );
    const temporary = sim.createUser({ sessionToken: true });
    await client(sim, temporary).send(new ListAliasesCommand({}));
    const withoutToken = client(sim, {
      accessKeyId: temporary.accessKeyId,
      secretAccessKey: temporary.secretAccessKey,
    });
    assert.equal((await rejection(withoutToken.send(new ListAliasesCommand({})))).name, 'UnrecognizedClientException');
    for (const c of [wrongSecret, unknown, otherRegion]) c.destroy();
  });

  it('throttles, fails with 5xx and drops connections when told; the SDK’s own retries get through a short burst', async () => {
    const key = await newKey();
    const sign = (c: KMSClient) =>
      c.send(
        new SignCommand({
          KeyId: key?.KeyId,
          Message: Buffer.alloc(32, 2),
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
    sim.faults.set({ throttling: { count: 1, action: 'Sign' } });
    const throttled = await rejection(sign(kms));
    assert.equal(throttled.name, 'ThrottlingException');
    assert.equal(throttled.message, 'Rate exceeded');
    sim.faults.set({ serverError: { count: 1, status: 500 } });
    const internal = await rejection(sign(kms));
    assert.equal(internal.name, 'KMSInternalException');
    assert.equal(internal.$metadata?.httpStatusCode, 500);
    sim.faults.set({ throttling: { count: 1 }, serverError: { count: 1, status: 503 } });
    const retrying = client(sim, user, 3);
    const before = sim.requests.Sign ?? 0;
    await sign(retrying);
    assert.equal((sim.requests.Sign ?? 0) - before, 3, 'throttled, unavailable, then signed');
    sim.faults.set({ unreachable: true });
    const down = await rejection(sign(kms));
    assert.notEqual(down.name, 'ThrottlingException');
    assert.equal(down.$metadata?.httpStatusCode, undefined);
    sim.faults.clear();
    sim.faults.set({ latency: { ms: 20, action: 'Sign' } });
    await sign(kms);
    sim.faults.clear();
    retrying.destroy();
  });
});

describe('AWS KMS simulator in a process of its own (benchmarks)', () => {
  it('answers the SDK with the latency it was started with, and counts its signatures', async () => {
    const sim = await startKmsSimulatorProcess({ faults: { latency: { ms: 50, action: 'Sign' } } });
    const kms = new KMSClient({ region: sim.region, endpoint: sim.url, credentials: sim.credentials, maxAttempts: 1 });
    try {
      const key = (await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' })))
        .KeyMetadata;
      const publicKey = createPublicKey({
        key: Buffer.from((await kms.send(new GetPublicKeyCommand({ KeyId: key?.KeyId }))).PublicKey as Uint8Array),
        format: 'der',
        type: 'spki',
      });
      const started = performance.now();
      const messages = [0, 1, 2].map((i) => Buffer.from(`message ${i}`));
      const signed = await Promise.all(
        messages.map((message) =>
          kms.send(
            new SignCommand({
              KeyId: key?.KeyId,
              Message: createHash('sha256').update(message).digest(),
              MessageType: 'DIGEST',
              SigningAlgorithm: 'ECDSA_SHA_256',
            }),
          ),
        ),
      );
      assert.ok(performance.now() - started >= 50, 'each Sign answered 50 ms late');
      for (const [i, answer] of signed.entries()) {
        assert.ok(verify('sha256', messages[i] as Buffer, publicKey, Buffer.from(answer.Signature as Uint8Array)));
      }
      assert.equal((await sim.succeeded()).Sign, 3);
    } finally {
      kms.destroy();
      await sim.stop();
    }
  });
});
