import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COUNTER_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import { type Address, type PublicClient, parseEther } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import type { Harness } from '#api-testing/harness.ts';
import { settled } from '#api-testing/transactionFlow.ts';
import { startFireblocksPlatform } from './fireblocksFixture.ts';
import { startKmsPlatform } from './kmsFixture.ts';

interface Platform {
  h: Harness;
  chain: PublicClient;
  counter: Address;
  project: (functions?: string[]) => Promise<{ headers: Record<string, string>; ids: Record<string, number> }>;
  stop: () => Promise<void>;
}

/**
 * Value through a custodian's wallet: a payable call carries exactly its value, and a native transfer to an account
 * without code lands in full, each as the custodian's own kind of transaction (Fireblocks: a CONTRACT_CALL with its
 * amount, and a TRANSFER; AWS KMS: the platform's own signed transaction).
 */
for (const [name, start, seed] of [
  ['Fireblocks', () => startFireblocksPlatform(), '7c'],
  ['AWS KMS', () => startKmsPlatform(), '8d'],
] as const) {
  describe(`value through ${name} wallets, on anvil`, () => {
    let f: Platform;
    let p: Awaited<ReturnType<Platform['project']>>;
    let fireblocksKinds: (rowId: string) => { operation: string; amount: string }[] = () => [];

    before(async () => {
      const platform = await start();
      f = platform as unknown as Platform;
      if ('custodianTransactionsOf' in platform) {
        fireblocksKinds = (rowId) =>
          platform
            .custodianTransactionsOf(rowId)
            .map((t) => ({ operation: String(t.operation), amount: String(t.amountInfo?.amount) }));
      }
      p = await f.project([]);
      const contracts = await f.h.call('get-contracts', { headers: p.headers });
      const contractId = contracts.body.contracts[0].id;
      const deposit = await f.h.call('activate-contract-function', {
        headers: p.headers,
        body: {
          contractId,
          formattedAbiFunction: COUNTER_FORMATTED_ABI.find((e) => e.startsWith('function deposit(')),
          maxValuePerTransaction: parseEther('1').toString(),
          maxValuePerDay: parseEther('5').toString(),
        },
      });
      assert.equal(deposit.status, 201, JSON.stringify(deposit.body));
      p.ids.deposit = deposit.body.contractActivatedFunction.id;
    });
    after(async () => {
      await f?.stop();
    });

    it('pays a payable function exactly its value', async () => {
      const before = await f.chain.getBalance({ address: f.counter });
      const res = await f.h.call('execute-transaction', {
        headers: p.headers,
        body: {
          contractActivatedFunctionId: p.ids.deposit,
          functionArgs: [],
          value: '15000000000000000',
          idempotencyKey: 'deposit',
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const done = await settled(f.h, p.headers, res.body.transaction.id, 60_000);
      assert.equal(done.status, 'succeeded', done.errorMessage);
      assert.equal((await f.chain.getTransaction({ hash: done.transactionHash })).value, 15_000_000_000_000_000n);
      assert.equal((await f.chain.getBalance({ address: f.counter })) - before, 15_000_000_000_000_000n);
      if (name === 'Fireblocks')
        assert.deepEqual(fireblocksKinds(done.id), [{ operation: 'CONTRACT_CALL', amount: '0.015' }]);
    });

    it('sends a native transfer to an account without code, received in full', async () => {
      const recipient = privateKeyToAddress(`0x${seed.repeat(32)}` as `0x${string}`);
      const imported = await f.h.call('import-contract', {
        headers: p.headers,
        body: { networkId: 1337, address: recipient, formattedAbi: ['receive() external payable'] },
      });
      const fn = await f.h.call('activate-contract-function', {
        headers: p.headers,
        body: {
          contractId: imported.body.contract.id,
          formattedAbiFunction: 'receive() external payable',
          maxValuePerTransaction: parseEther('1').toString(),
          maxValuePerDay: parseEther('1').toString(),
        },
      });
      const res = await f.h.call('execute-transaction', {
        headers: p.headers,
        body: {
          contractActivatedFunctionId: fn.body.contractActivatedFunction.id,
          functionArgs: [],
          value: parseEther('0.3').toString(),
          idempotencyKey: 'payout',
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const done = await settled(f.h, p.headers, res.body.transaction.id, 60_000);
      assert.equal(done.status, 'succeeded', done.errorMessage);
      assert.equal((await f.chain.getTransaction({ hash: done.transactionHash })).input, '0x');
      assert.equal(await f.chain.getBalance({ address: recipient }), parseEther('0.3'));
      if (name === 'Fireblocks') assert.deepEqual(fireblocksKinds(done.id), [{ operation: 'TRANSFER', amount: '0.3' }]);
    });
  });
}
