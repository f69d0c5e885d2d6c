import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { ANVIL_DEPLOYER, compileTill, deployTill, TILL_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import {
  type Address,
  createTestClient,
  createWalletClient,
  http,
  type PublicClient,
  parseEther,
  parseGwei,
  publicActions,
  type TestClient,
  toHex,
  zeroAddress,
} from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { settled } from '#api-testing/transactionFlow.ts';

const deployerOf = (url: string) =>
  createWalletClient({ account: ANVIL_DEPLOYER, transport: http(url) }).extend(publicActions);

const entry = (name: string) => TILL_FORMATTED_ABI.find((e) => e.startsWith(`function ${name}(`)) as string;

describe('value on payable functions, inside spending limits, and native transfers (interval mining)', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let chain: PublicClient;
  let till: Address;
  let headers: Record<string, string>;
  let tillId: number;
  let keySeq = 0;
  let testClient: TestClient;
  let deployer: ReturnType<typeof deployerOf>;

  before(async () => {
    // One slot per epoch: blocks become final two blocks behind the head.
    anvil = await startAnvil({ port: await freePort(), blockTime: 1, args: ['--slots-in-an-epoch', '1'] });
    // A fee cap under which a row can be held unsent (see the test of rows that end without being mined).
    h = await createHarness({
      rpcUrls: { 1337: anvil.url },
      worker: true,
      transactions: { maxFeePerGas: { 1337: parseGwei('50') }, feeCapPollMs: 200 },
    });
    testClient = createTestClient({ mode: 'anvil', transport: http(anvil.url) });
    deployer = deployerOf(anvil.url);
    chain = readClient(anvil.url);
    till = await deployTill(anvil.url);
    const p = await h.project('Payments');
    headers = apiKey(p.apiKey);
    tillId = await importAddress(till);
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  async function importAddress(address: Address, formattedAbi = TILL_FORMATTED_ABI): Promise<number> {
    const res = await h.call('import-contract', { headers, body: { networkId: 1337, address, formattedAbi } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.contract.id;
  }
  const activate = (contractId: number, formattedAbiFunction: string, limits: object = {}) =>
    h.call('activate-contract-function', { headers, body: { contractId, formattedAbiFunction, ...limits } });
  /** Opens or closes a Till, from the deployer, and waits for the block. */
  async function setClosed(address: Address, closed: boolean): Promise<void> {
    const hash = await deployer.writeContract({
      address,
      abi: compileTill().abi,
      functionName: 'setClosed',
      args: [closed],
      chain: null,
    });
    await deployer.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }
  const execute = (contractActivatedFunctionId: number, functionArgs: string[], value?: string) =>
    h.call('execute-transaction', {
      headers,
      body: {
        contractActivatedFunctionId,
        functionArgs,
        idempotencyKey: `value-${++keySeq}`,
        ...(value === undefined ? {} : { value }),
      },
    });

  it('activates a payable function with limits, shows them, and changes only those given on a second activation', async () => {
    const first = await activate(tillId, entry('pay'), { maxValuePerTransaction: '1000', maxValuePerDay: '5000' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.contractActivatedFunction.maxValuePerTransaction, '1000');
    assert.equal(first.body.contractActivatedFunction.maxValuePerDay, '5000');
    const again = await activate(tillId, entry('pay'), { maxValuePerDay: '8000' });
    assert.equal(again.body.contractActivatedFunction.id, first.body.contractActivatedFunction.id);
    assert.equal(again.body.contractActivatedFunction.maxValuePerTransaction, '1000');
    assert.equal(again.body.contractActivatedFunction.maxValuePerDay, '8000');
    const listed = await h.call('get-contract-activated-functions', { headers, body: { contractId: tillId } });
    const shown = listed.body.contractActivatedFunctions.find(
      (f: { id: number }) => f.id === first.body.contractActivatedFunction.id,
    );
    assert.deepEqual([shown.maxValuePerTransaction, shown.maxValuePerDay], ['1000', '8000']);
    // Without limits, a new activation allows no value: "0".
    const plain = await activate(tillId, entry('payAtLeast'));
    assert.deepEqual(
      [
        plain.body.contractActivatedFunction.maxValuePerTransaction,
        plain.body.contractActivatedFunction.maxValuePerDay,
      ],
      ['0', '0'],
    );
  });

  it('refuses limits on, and value for, a function that is not payable, naming the field', async () => {
    const limited = await activate(tillId, entry('note'), { maxValuePerTransaction: '1' });
    assert.equal(limited.status, 400, JSON.stringify(limited.body));
    assert.equal(limited.body.code, 'FUNCTION_NOT_PAYABLE');
    assert.deepEqual(
      limited.body.details.map((d: { field: string }) => d.field),
      ['body.maxValuePerTransaction'],
    );
    const note = await activate(tillId, entry('note'), { maxValuePerTransaction: '0' });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const res = await execute(note.body.contractActivatedFunction.id, ['hello'], '1');
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'FUNCTION_NOT_PAYABLE');
    assert.match(res.body.message, /^Function note\(string\) is nonpayable: it cannot receive value/);
    assert.deepEqual(
      res.body.details.map((d: { field: string }) => d.field),
      ['body.value'],
    );
    // "0" is no value: accepted.
    assert.equal((await execute(note.body.contractActivatedFunction.id, ['zero'], '0')).status, 201);
    for (const value of ['-1', '01', '1.5', '1e18', ' 1', 'x', '9'.repeat(78)]) {
      const bad = await execute(note.body.contractActivatedFunction.id, ['bad'], value);
      assert.equal(bad.status, 400, value);
      assert.equal(bad.body.code, 'VALIDATION_FAILED', value);
      assert.deepEqual(
        bad.body.details.map((d: { field: string }) => d.field),
        ['body.value'],
        value,
      );
    }
  });

  it('sends the value with the call: the contract holds exactly what each transaction paid', async () => {
    const fn = await activate(tillId, entry('pay'), {
      maxValuePerTransaction: parseEther('1').toString(),
      maxValuePerDay: parseEther('10').toString(),
    });
    const before = await chain.getBalance({ address: till });
    const res = await execute(fn.body.contractActivatedFunction.id, ['order 7'], '123456789');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.transaction.value, '123456789');
    const done = await settled(h, headers, res.body.transaction.id);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    assert.equal(done.value, '123456789');
    const sent = await chain.getTransaction({ hash: done.transactionHash });
    assert.equal(sent.value, 123456789n);
    assert.equal((await chain.getBalance({ address: till })) - before, 123456789n);
  });

  it('refuses a value over the per-transaction limit, and one over what is left of the day, saying what is left', async () => {
    const contractId = await importAddress((await deployTill(anvil.url)) as Address);
    const fn = await activate(contractId, entry('pay'), { maxValuePerTransaction: '600', maxValuePerDay: '1000' });
    const id = fn.body.contractActivatedFunction.id;
    const over = await execute(id, ['big'], '601');
    assert.equal(over.status, 422, JSON.stringify(over.body));
    assert.equal(over.body.code, 'SPENDING_LIMIT_EXCEEDED');
    assert.match(over.body.message, /over maxValuePerTransaction of function pay\(string\) \(600 wei\)/);
    assert.equal((await execute(id, ['a'], '600')).status, 201);
    const day = await execute(id, ['b'], '500');
    assert.equal(day.status, 422, JSON.stringify(day.body));
    assert.match(day.body.message, /over maxValuePerDay of function pay\(string\) \(1000 wei\); 400 wei is left today/);
    assert.equal((await execute(id, ['c'], '400')).status, 201);
    const none = await execute(id, ['d'], '1');
    assert.match(none.body.message, /; 0 wei is left today/);
    const bigAgain = await execute(id, ['g'], '601');
    assert.match(bigAgain.body.message, /over maxValuePerTransaction .*; 0 wei is left today/);
    // Raising the day's limit lets more through at once; a request without value never counts.
    await activate(contractId, entry('pay'), { maxValuePerDay: '1100' });
    assert.equal((await execute(id, ['e'])).status, 201);
    assert.equal((await execute(id, ['f'], '100')).status, 201);
  });

  it('holds the day limit under concurrency: of 100 simultaneous requests, exactly what fits is accepted', async () => {
    const contractId = await importAddress((await deployTill(anvil.url)) as Address);
    const fn = await activate(contractId, entry('pay'), { maxValuePerTransaction: '100', maxValuePerDay: '3700' });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => execute(fn.body.contractActivatedFunction.id, [`c${i}`], '100')),
    );
    const accepted = answers.filter((a) => a.status === 201);
    assert.equal(accepted.length, 37, JSON.stringify(answers.find((a) => a.status !== 201 && a.status !== 422)?.body));
    assert.ok(answers.every((a) => a.status === 201 || a.body.code === 'SPENDING_LIMIT_EXCEEDED'));
    const { rows } = await h.db.query<{ total: string }>(
      'SELECT sum(value)::text AS total FROM transactions WHERE contract_activated_function_id = $1',
      [fn.body.contractActivatedFunction.id],
    );
    assert.equal(rows[0]?.total, '3700');
  });

  it('does not count a transaction that ended without being mined against the day', async () => {
    const address = await deployTill(anvil.url);
    const contractId = await importAddress(address);
    const fn = await activate(contractId, entry('payAtLeast'), {
      maxValuePerTransaction: '500',
      maxValuePerDay: '500',
    });
    const id = fn.body.contractActivatedFunction.id;
    // Too little for the function: refused at acceptance with the reason, and nothing counts.
    const little = await execute(id, ['600'], '500');
    assert.equal(little.status, 422, JSON.stringify(little.body));
    assert.match(little.body.message, /too little/);
    // Priced out (base fee above the cap), the row waits unsent; the till closes; then it reverts at its estimate.
    // The earlier tests' transactions are mined first: priced out, they would hold the in-flight room.
    await waitFor(
      async () => {
        const { rows } = await h.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM transactions WHERE status IN ('created', 'processing', 'broadcasted')",
        );
        return rows[0]?.n === 0 || undefined;
      },
      60_000,
      'every earlier transaction to settle',
    );
    await testClient.request({ method: 'anvil_setNextBlockBaseFeePerGas', params: [toHex(parseGwei('500'))] });
    await testClient.mine({ blocks: 1 });
    const res = await execute(id, ['0'], '500');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await waitFor(
      async () => {
        const t = await h.call('get-transaction', { headers, query: { transactionId: res.body.transaction.id } });
        return /Waiting for the base fee/.test(t.body.transaction.errorMessage ?? '') || undefined;
      },
      20_000,
      'the row to wait for the base fee',
    );
    await setClosed(address, true);
    assert.equal((await execute(id, ['0'], '1')).status, 422, 'a full day refuses more while the row waits');
    await testClient.request({ method: 'anvil_setNextBlockBaseFeePerGas', params: [toHex(parseGwei('1'))] });
    const done = await settled(h, headers, res.body.transaction.id);
    assert.equal(done.status, 'reverted', done.errorMessage);
    assert.equal(done.blockNumber, null);
    assert.match(done.errorMessage, /^Reverted before broadcast .*closed/);
    // Never mined, it no longer counts: the whole day's limit is free again.
    await setClosed(address, false);
    const again = await execute(id, ['0'], '500');
    assert.equal(again.status, 201, JSON.stringify(again.body));
    // The row that never had a block does not hold the wallet's others back from becoming final.
    await waitFor(
      async () => {
        const t = await h.call('get-transaction', { headers, query: { transactionId: again.body.transaction.id } });
        return t.body.transaction.finalized || undefined;
      },
      30_000,
      'the next transaction to become final',
    );
  });

  it('sends a native transfer to an account without code through an activated receive(), received in full', async () => {
    const recipient = privateKeyToAddress(`0x${'5a'.repeat(32)}`);
    assert.equal(await chain.getCode({ address: recipient }), undefined);
    const contractId = await importAddress(recipient, ['receive() external payable']);
    const fn = await activate(contractId, 'receive() external payable', {
      maxValuePerTransaction: parseEther('0.5').toString(),
      maxValuePerDay: parseEther('2').toString(),
    });
    assert.equal(fn.status, 201, JSON.stringify(fn.body));
    assert.equal(fn.body.contractActivatedFunction.formattedAbiFunction, 'receive() external payable');
    const withArgs = await execute(fn.body.contractActivatedFunction.id, ['1'], '1');
    assert.equal(withArgs.status, 400);
    assert.match(withArgs.body.message, /receive\(\) takes no arguments/);
    const res = await execute(fn.body.contractActivatedFunction.id, [], parseEther('0.25').toString());
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const done = await settled(h, headers, res.body.transaction.id);
    assert.equal(done.status, 'succeeded', done.errorMessage);
    const sent = await chain.getTransaction({ hash: done.transactionHash });
    assert.equal(sent.input, '0x');
    assert.equal(sent.to?.toLowerCase(), recipient.toLowerCase());
    assert.equal(await chain.getBalance({ address: recipient }), parseEther('0.25'));
    // A receive() is not read, and a contract without one cannot have it activated.
    const read = await h.call('call-contract-function', {
      headers,
      body: { contractId, formattedAbiFunction: 'receive()', functionArgs: [] },
    });
    assert.equal(read.body.code, 'FUNCTION_NOT_READABLE');
    const noReceive = await importAddress(zeroAddress.replace(/0$/, '1') as Address, [
      'function pay(string memo) payable',
    ]);
    const missing = await activate(noReceive, 'receive() external payable');
    assert.equal(missing.body.code, 'FUNCTION_NOT_IN_ABI');
    assert.match(missing.body.message, /receive\(\) is not in the ABI/);
  });

  it('refuses a value the system wallet cannot pay, before creating anything', async () => {
    const contractId = await importAddress(privateKeyToAddress(`0x${'6b'.repeat(32)}`), ['receive() external payable']);
    const huge = (10n ** 30n).toString();
    const fn = await activate(contractId, 'receive()', { maxValuePerTransaction: huge, maxValuePerDay: huge });
    const res = await execute(fn.body.contractActivatedFunction.id, [], huge);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.code, 'INSUFFICIENT_FUNDS');
    assert.match(
      res.body.message,
      /^The system wallet 0x[0-9a-fA-F]{40} holds \d+ wei on network 1337, less than the 10{30} wei to send$/,
    );
    const { rows } = await h.db.query('SELECT 1 FROM transactions WHERE contract_activated_function_id = $1', [
      fn.body.contractActivatedFunction.id,
    ]);
    assert.equal(rows.length, 0);
  });

  it('keeps the value in the idempotency of a request: the same key with another value is a conflict', async () => {
    const fn = await activate(tillId, entry('pay'));
    const body = {
      contractActivatedFunctionId: fn.body.contractActivatedFunction.id,
      functionArgs: ['k'],
      idempotencyKey: 'value-key',
    };
    const first = await h.call('execute-transaction', { headers, body: { ...body, value: '5' } });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const same = await h.call('execute-transaction', { headers, body: { ...body, value: '5' } });
    assert.equal(same.body.transaction.id, first.body.transaction.id);
    const other = await h.call('execute-transaction', { headers, body: { ...body, value: '6' } });
    assert.equal(other.status, 409);
  });
});
