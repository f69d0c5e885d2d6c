import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Address, encodeFunctionData, getAddress, type Hex, parseEther, toHex } from 'viem';
import { compileCounter } from '../testContract.ts';
import { type SimulatorFixture, startSimulatorFixture } from './startSimulatorFixture.ts';

interface SdkFailure {
  response?: { statusCode: number; data: { message?: string; code?: number } };
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

/** An address no one holds a key of, with no code and no balance. */
const freshAddress = (): Address => getAddress(toHex(randomBytes(20)));

describe('Fireblocks simulator: value transfers and contract calls carrying value', () => {
  let f: SimulatorFixture;
  before(async () => {
    f = await startSimulatorFixture();
  });
  after(() => f?.stop());

  const deposit: Hex = encodeFunctionData({ abi: compileCounter().abi, functionName: 'deposit' });

  it('sends a CONTRACT_CALL amount as the call value: the payable contract gains exactly that wei', async () => {
    const vault = await f.fundedVault('value-call');
    const before = await f.chain.getBalance({ address: f.counter });
    // No gasLimit: the simulator estimates the call with its value.
    const created = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.incrementRequest(vault.id, 0n, {
        amount: '0.015',
        extraParameters: { contractCallData: deposit },
      }),
    });
    const done = await f.untilStatus(created.data.id as string, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
    assert.equal((await f.chain.getBalance({ address: f.counter })) - before, 15_000_000_000_000_000n);
    const sent = await f.chain.getTransaction({ hash: done.txHash as Hex });
    assert.equal(sent.value, parseEther('0.015'));
    assert.equal(sent.input, deposit);
    assert.equal(done.operation, 'CONTRACT_CALL');
    assert.deepEqual(done.amountInfo, {
      amount: '0.015',
      requestedAmount: '0.015',
      netAmount: '0.015',
      amountUSD: '0',
    });
    assert.equal(done.amount, 0.015);
    assert.equal(done.requestedAmount, 0.015);
    assert.equal(done.extraParameters?.contractCallData, deposit);
  });

  it('runs a TRANSFER (the default operation) to an address without code: the whole amount lands', async () => {
    const vault = await f.fundedVault('value-transfer');
    const to = freshAddress();
    const created = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.transferRequest(vault.id, to, '1', { externalTxId: 'transfer-1' }),
    });
    assert.equal(created.data.status, 'SUBMITTED');
    const done = await f.untilStatus(created.data.id as string, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED', `${done.subStatus} ${done.errorDescription ?? ''}`);
    assert.equal(await f.chain.getBalance({ address: to }), parseEther('1'));
    const sent = await f.chain.getTransaction({ hash: done.txHash as Hex });
    assert.equal(sent.to?.toLowerCase(), to.toLowerCase());
    assert.equal(sent.from.toLowerCase(), vault.address.toLowerCase());
    assert.equal(sent.input, '0x');
    assert.equal(sent.gas, 21_000n);
    assert.equal(done.operation, 'TRANSFER');
    assert.equal(done.amountInfo?.amount, '1');
    assert.equal(done.amountInfo?.netAmount, '1');
    assert.equal(done.amount, 1);
    assert.equal(done.gasLimit, '21000');
    assert.deepEqual(done.extraParameters, {});
    assert.equal(done.networkRecords?.[0]?.netAmount, '1');
    // The vault paid the amount and the fee, nothing more.
    const fee = parseEther(done.feeInfo?.networkFee as string);
    assert.equal(await f.chain.getBalance({ address: vault.address }), parseEther('10') - parseEther('1') - fee);
  });

  it('takes a TRANSFER amount as a number, and a given gasLimit and fees', async () => {
    const vault = await f.fundedVault('value-number');
    const to = freshAddress();
    const created = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.transferRequest(vault.id, to, 0.25, {
        operation: 'TRANSFER',
        gasLimit: '30000',
        maxFee: '10',
        priorityFee: '1',
      }),
    });
    const done = await f.untilStatus(created.data.id as string, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED');
    assert.equal(await f.chain.getBalance({ address: to }), parseEther('0.25'));
    const sent = await f.chain.getTransaction({ hash: done.txHash as Hex });
    assert.equal(sent.gas, 30_000n);
    assert.equal(sent.maxFeePerGas, 10_000_000_000n);
    assert.equal(done.amountInfo?.amount, '0.25');
  });

  it('refuses a bad amount with 400 naming the field, and creates nothing', async () => {
    const vault = await f.fundedVault('value-bad');
    const to = freshAddress();
    const count = f.sim.transactions().length;
    const bad: unknown[] = [
      '-1',
      'abc',
      '',
      ' 1',
      '1.',
      '.5',
      '1e18',
      '0x10',
      '1.0000000000000000001',
      -0.5,
      1e-7,
      {},
      true,
    ];
    for (const amount of bad) {
      for (const request of [
        f.transferRequest(vault.id, to, amount as string),
        f.incrementRequest(vault.id, 1n, { amount }),
      ]) {
        const refused = await failure(f.fireblocks.transactions.createTransaction({ transactionRequest: request }));
        assert.equal(refused.response?.statusCode, 400, `amount ${JSON.stringify(amount)}`);
        assert.match(refused.response?.data.message ?? '', /^amount must be/, `amount ${JSON.stringify(amount)}`);
      }
    }
    for (const request of [f.transferRequest(vault.id, to, '0'), f.transferRequest(vault.id, to, '0.000')]) {
      const refused = await failure(f.fireblocks.transactions.createTransaction({ transactionRequest: request }));
      assert.equal(refused.response?.statusCode, 400);
      assert.equal(refused.response?.data.message, 'amount must be greater than 0 for a TRANSFER');
    }
    const { amount: _left, ...noAmount } = f.transferRequest(vault.id, to, '1');
    const missing = await failure(f.fireblocks.transactions.createTransaction({ transactionRequest: noAmount }));
    assert.equal(missing.response?.statusCode, 400);
    assert.equal(missing.response?.data.message, 'amount is required for a TRANSFER');
    assert.equal(f.sim.transactions().length, count);
  });

  it('refuses a TRANSFER with contractCallData, and an operation it does not simulate', async () => {
    const vault = await f.fundedVault('value-transfer-data');
    const withData = await failure(
      f.fireblocks.transactions.createTransaction({
        transactionRequest: f.transferRequest(vault.id, f.counter, '1', {
          extraParameters: { contractCallData: deposit },
        }),
      }),
    );
    assert.equal(withData.response?.statusCode, 400);
    assert.equal(
      withData.response?.data.message,
      'extraParameters.contractCallData is only allowed with operation CONTRACT_CALL, not TRANSFER',
    );
    const mint = await failure(
      f.fireblocks.transactions.createTransaction({
        transactionRequest: f.transferRequest(vault.id, freshAddress(), '1', { operation: 'MINT' }),
      }),
    );
    assert.equal(mint.response?.statusCode, 400);
    assert.match(mint.response?.data.message ?? '', /operation MINT is not simulated/);
  });

  it('accepts an amount the vault cannot pay, then fails it INSUFFICIENT_FUNDS before signing', async () => {
    const vault = await f.fundedVault('value-short'); // 10 ETH
    const to = freshAddress();
    const transfer = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.transferRequest(vault.id, to, '11'),
    });
    assert.equal(transfer.statusCode, 200);
    assert.equal(transfer.data.status, 'SUBMITTED');
    const failed = await f.untilStatus(transfer.data.id as string, ['COMPLETED', 'FAILED']);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.subStatus, 'INSUFFICIENT_FUNDS');
    assert.equal(failed.txHash, '');
    assert.equal(failed.amountInfo?.amount, '11');
    // The whole balance, with nothing left for the fee: still short (amount + gas limit × max fee).
    const call = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.incrementRequest(vault.id, 0n, {
        amount: '10',
        gasLimit: '50000',
        extraParameters: { contractCallData: deposit },
      }),
    });
    const callFailed = await f.untilStatus(call.data.id as string, ['COMPLETED', 'FAILED']);
    assert.equal(callFailed.subStatus, 'INSUFFICIENT_FUNDS');
    // Without a gas limit too (the node would not estimate it).
    const estimated = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.incrementRequest(vault.id, 0n, {
        amount: '12.5',
        extraParameters: { contractCallData: deposit },
      }),
    });
    assert.equal((await f.untilStatus(estimated.data.id as string, ['FAILED'])).subStatus, 'INSUFFICIENT_FUNDS');
    assert.equal(await f.chain.getBalance({ address: to }), 0n);
    // No nonce was used: the vault's next transfer is its first on chain.
    const next = await f.fireblocks.transactions.createTransaction({
      transactionRequest: f.transferRequest(vault.id, to, '2'),
    });
    const done = await f.untilStatus(next.data.id as string, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.nonce, '0');
    assert.equal(await f.chain.getBalance({ address: to }), parseEther('2'));
  });

  it('keeps the value of a replaced TRANSFER: the amount lands once, from the new hash', async () => {
    const vault = await f.fundedVault('value-speedup');
    const to = freshAddress();
    await f.chain.request({ method: 'evm_setAutomine', params: [false] } as never);
    try {
      const created = await f.fireblocks.transactions.createTransaction({
        transactionRequest: f.transferRequest(vault.id, to, '0.5', { maxFee: '5', priorityFee: '1' }),
      });
      const txId = created.data.id as string;
      const firstHash = (await f.untilStatus(txId, ['CONFIRMING'])).txHash as Hex;
      const newHash = (await f.sim.replaceHash(txId)) as Hex;
      assert.notEqual(newHash, firstHash);
      await f.chain.request({ method: 'evm_mine', params: [] } as never);
      const done = await f.untilStatus(txId, ['COMPLETED', 'FAILED']);
      assert.equal(done.status, 'COMPLETED');
      assert.equal(done.txHash, newHash);
      assert.equal((await f.chain.getTransaction({ hash: newHash })).value, parseEther('0.5'));
      assert.equal(await f.chain.getBalance({ address: to }), parseEther('0.5'));
    } finally {
      await f.chain.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
  });
});
