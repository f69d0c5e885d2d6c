import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fireblocks } from '@fireblocks/ts-sdk';
import { type FireblocksSimulator, startFireblocksSimulator } from './startFireblocksSimulator.ts';
import { type SimulatorFixture, startSimulatorFixture } from './startSimulatorFixture.ts';

interface SdkFailure {
  message: string;
  response?: { statusCode: number; data: { message?: string; code?: number }; headers: Record<string, string> };
}

/** The SDK's rejection of `call`, for assertions. */
async function failure(call: Promise<unknown>): Promise<SdkFailure> {
  try {
    await call;
  } catch (error) {
    return error as SdkFailure;
  }
  assert.fail('expected the call to fail');
}

describe('Fireblocks simulator: duplicates, idempotency and faults', () => {
  let f: SimulatorFixture;
  let vaultId: string;
  before(async () => {
    f = await startSimulatorFixture();
    vaultId = (await f.fundedVault('faults')).id;
  });
  after(() => f?.stop());

  const create = (fields: Record<string, unknown> = {}, idempotencyKey?: string) =>
    f.fireblocks.transactions.createTransaction({
      transactionRequest: f.incrementRequest(vaultId, 1n, fields),
      idempotencyKey,
    });

  it('refuses a second create with the same externalTxId: 400, code 1438', async () => {
    await create({ externalTxId: 'dup-1' });
    const refused = await failure(create({ externalTxId: 'dup-1' }));
    assert.equal(refused.response?.statusCode, 400);
    assert.deepEqual(refused.response?.data, {
      message: 'The external tx id that was provided in the request, already exists',
      code: 1438,
    });
    assert.equal(f.sim.transactions().filter((t) => t.externalTxId === 'dup-1').length, 1);
  });

  it('replays the first answer to a reused Idempotency-Key, creating nothing more', async () => {
    const first = await create({ externalTxId: 'idem-1' }, 'key-1');
    const again = await create({ externalTxId: 'idem-1' }, 'key-1');
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.data, first.data);
    assert.equal(f.sim.transactions().filter((t) => t.externalTxId === 'idem-1').length, 1);
  });

  it('answers 5xx without recording, then refuses that Idempotency-Key with 400; a new key goes through', async () => {
    const posts = f.sim.requests['POST /transactions'] ?? 0;
    f.sim.faults.set({ serverError: { count: 1, route: 'POST /transactions' } });
    const failed = await failure(create({ externalTxId: 'after-500' }, 'key-500'));
    assert.equal(failed.response?.statusCode, 500);
    assert.equal(f.sim.transactions().filter((t) => t.externalTxId === 'after-500').length, 0);
    const refused = await failure(create({ externalTxId: 'after-500' }, 'key-500'));
    assert.equal(refused.response?.statusCode, 400);
    assert.equal(
      refused.response?.data.message,
      "This operation doesn't support the usage of the same idempotency key after an internal error",
    );
    const created = await create({ externalTxId: 'after-500' }, 'key-500-b');
    assert.equal(created.statusCode, 200);
    assert.equal(f.sim.requests['POST /transactions'], posts + 3);
  });

  it('answers 429 to the targeted route only, for the next N requests, with Retry-After when set', async () => {
    f.sim.faults.set({ rateLimited: { count: 2, route: 'POST /transactions', retryAfterSeconds: 3 } });
    const listed = await f.fireblocks.transactions.getTransactions({ limit: 1 });
    assert.equal(listed.statusCode, 200);
    for (let i = 0; i < 2; i++) {
      const limited = await failure(create());
      assert.equal(limited.response?.statusCode, 429);
      assert.equal(limited.response?.headers['retry-after'], '3');
    }
    assert.equal((await create()).statusCode, 200);
  });

  it('stores a create whose answer is lost: findable by externalTxId', async () => {
    f.sim.faults.set({ lostResponse: { count: 1, route: 'POST /transactions' } });
    const lost = await failure(create({ externalTxId: 'lost-1' }));
    assert.equal(lost.response, undefined);
    const found = await f.fireblocks.transactions.getTransactionByExternalId({ externalTxId: 'lost-1' });
    assert.equal(found.data.externalTxId, 'lost-1');
    assert.equal((await failure(create({ externalTxId: 'lost-1' }))).response?.data.code, 1438);
  });

  it('resets every connection while unreachable, and answers again once cleared', async () => {
    f.sim.faults.set({ unreachable: true });
    const down = await failure(f.fireblocks.transactions.getTransactions({ limit: 1 }));
    assert.equal(down.response, undefined);
    f.sim.faults.clear();
    assert.equal((await f.fireblocks.transactions.getTransactions({ limit: 1 })).statusCode, 200);
  });

  it('holds answers of the targeted route back when slow', async () => {
    f.sim.faults.set({ slow: { ms: 400, route: 'GET /transactions' } });
    try {
      const started = Date.now();
      await f.fireblocks.transactions.getTransactions({ limit: 1 });
      assert.ok(Date.now() - started >= 400);
    } finally {
      f.sim.faults.clear();
    }
  });

  it('blocks by policy, or fails for insufficient funds, the transactions created while set', async () => {
    f.sim.faults.set({ policyBlock: true });
    const blocked = (await create()).data.id as string;
    f.sim.faults.set({ policyBlock: false, insufficientFunds: true });
    const poor = (await create()).data.id as string;
    f.sim.faults.clear();
    const b = await f.untilStatus(blocked, ['BLOCKED']);
    assert.equal(b.subStatus, 'BLOCKED_BY_POLICY');
    const p = await f.untilStatus(poor, ['FAILED']);
    assert.equal(p.subStatus, 'INSUFFICIENT_FUNDS');
    assert.equal(p.txHash, '');
  });

  it('refuses bad bodies with 400 naming the field, and unknown assets and vaults', async () => {
    const bad = async (fields: Record<string, unknown>) => (await failure(create(fields))).response;
    assert.match((await bad({ assetId: undefined }))?.data.message ?? '', /assetId/);
    assert.equal((await bad({ assetId: 'NOT_AN_ASSET' }))?.data.code, 1006);
    assert.match((await bad({ source: { type: 'VAULT_ACCOUNT', id: '999' } }))?.data.message ?? '', /999/);
    const badAddress = await bad({ destination: { type: 'ONE_TIME_ADDRESS', oneTimeAddress: { address: '0x12' } } });
    assert.equal(badAddress?.statusCode, 400);
    assert.match(badAddress?.data.message ?? '', /address/);
    assert.match((await bad({ maxFee: 'ten' }))?.data.message ?? '', /maxFee/);
    const missing = await failure(f.fireblocks.vaults.getVaultAccount({ vaultAccountId: '999' }));
    assert.deepEqual([missing.response?.statusCode, missing.response?.data.code], [404, 1004]);
  });
});

describe('Fireblocks simulator rate limit', () => {
  let sim: FireblocksSimulator;
  before(async () => {
    sim = await startFireblocksSimulator({
      assets: { ETH_TEST5: { rpcUrl: 'http://127.0.0.1:9', chainId: 11155111 } },
      rateLimit: { perSecond: 5 },
    });
  });
  after(() => sim?.stop());

  it('answers 429 past the per-second rate of one API key on one endpoint', async () => {
    const user = sim.createApiUser();
    const fireblocks = new Fireblocks({ apiKey: user.apiKey, secretKey: user.privateKeyPem, basePath: sim.url });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        fireblocks.transactions.getTransactions({ limit: 1 }).then(
          (r) => r.statusCode,
          (e: SdkFailure) => e.response?.statusCode,
        ),
      ),
    );
    assert.ok(answers.filter((s) => s === 200).length >= 5);
    assert.ok(answers.filter((s) => s === 429).length >= 1);
    // Another endpoint has its own budget.
    assert.equal((await fireblocks.vaults.getPagedVaultAccounts({})).statusCode, 200);
  });
});
