import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COUNTER_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

const ADDRESS = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const CHECKSUMMED = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('contracts: import, list, activate, deactivate', () => {
  let h: Harness;
  let headers: Record<string, string>;
  let other: Record<string, string>;
  let contractId: number;

  before(async () => {
    h = await createHarness();
    headers = apiKey((await h.project('Contracts')).apiKey);
    other = apiKey((await h.project('Other')).apiKey);
  });
  after(() => h.close());

  const activate = (body: object, as = headers) => h.call('activate-contract-function', { headers: as, body });

  it('imports a contract with its address checksummed and type imported', async () => {
    const res = await h.call('import-contract', {
      headers,
      body: { networkId: 1337, address: ADDRESS, formattedAbi: COUNTER_FORMATTED_ABI },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.contract.address, CHECKSUMMED);
    assert.equal(res.body.contract.type, 'imported');
    assert.equal(res.body.contract.networkId, 1337);
    assert.deepEqual(res.body.contract.formattedAbi, COUNTER_FORMATTED_ABI);
    contractId = res.body.contract.id;
  });

  it('answers 409 for the same address on the same network, in any case spelling', async () => {
    const res = await h.call('import-contract', {
      headers,
      body: { networkId: 1337, address: CHECKSUMMED, formattedAbi: ['function f()'] },
    });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'CONFLICT');
    assert.match(
      res.body.message,
      new RegExp(`${CHECKSUMMED} on network 1337 is already imported \\(contract ${contractId}\\)`),
    );
  });

  it('imports the same address on another network, or into another project, and on an unconfigured network', async () => {
    const onMainnet = await h.call('import-contract', {
      headers,
      body: { networkId: 1, address: ADDRESS, formattedAbi: ['function f()'] },
    });
    assert.equal(onMainnet.status, 201);
    const elsewhere = await h.call('import-contract', {
      headers: other,
      body: { networkId: 1337, address: ADDRESS, formattedAbi: ['function f()'] },
    });
    assert.equal(elsewhere.status, 201);
  });

  it('names the ABI entry that does not parse', async () => {
    const res = await h.call('import-contract', {
      headers,
      body: {
        networkId: 137,
        address: ADDRESS,
        formattedAbi: ['function ok(uint256 a)', 'function broken(uint257 a)', 'event E()'],
      },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    assert.equal(res.body.details[0].field, 'body.formattedAbi[1]');
    assert.match(res.body.details[0].message, /does not parse/);
  });

  it('lists only the project’s contracts', async () => {
    const mine = await h.call('get-contracts', { headers });
    assert.equal(mine.status, 200);
    assert.deepEqual(
      mine.body.contracts.map((c: { networkId: number }) => c.networkId),
      [1337, 1],
    );
    const theirs = await h.call('get-contracts', { headers: other });
    assert.equal(theirs.body.contracts.length, 1);
  });

  it('activates a state-changing function; again (other argument names, or the bare signature) gives the same one', async () => {
    const first = await activate({ contractId, formattedAbiFunction: 'function increment(uint256 amount)' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.contractActivatedFunction.formattedAbiFunction, 'function increment(uint256 amount)');
    for (const spelling of [
      'function increment(uint256 amount)',
      'function increment(uint256 n)',
      'increment(uint256)',
    ]) {
      const again = await activate({ contractId, formattedAbiFunction: spelling });
      assert.equal(again.status, 201);
      assert.equal(again.body.contractActivatedFunction.id, first.body.contractActivatedFunction.id);
    }
    const payable = await activate({ contractId, formattedAbiFunction: 'function deposit() payable' });
    assert.equal(payable.status, 201);
  });

  it('refuses view functions, unknown signatures, unparsable functions and other projects’ contracts', async () => {
    const view = await activate({ contractId, formattedAbiFunction: 'function count() view returns (uint256)' });
    assert.equal(view.status, 422);
    assert.equal(view.body.code, 'FUNCTION_NOT_STATE_CHANGING');
    assert.match(view.body.message, /count\(\) is view/);
    const unknown = await activate({ contractId, formattedAbiFunction: 'function increment(uint128 amount)' });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, 'FUNCTION_NOT_IN_ABI');
    const garbage = await activate({ contractId, formattedAbiFunction: 'not a function' });
    assert.equal(garbage.status, 400);
    assert.equal(garbage.body.details[0].field, 'body.formattedAbiFunction');
    const foreign = await activate({ contractId, formattedAbiFunction: 'function increment(uint256 amount)' }, other);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'NOT_FOUND');
  });

  it('lists active functions; deactivation answers 201 with a message and is idempotent', async () => {
    const list = async () =>
      (
        await h.call('get-contract-activated-functions', { headers, body: { contractId } })
      ).body.contractActivatedFunctions.map((f: { formattedAbiFunction: string }) => f.formattedAbiFunction);
    assert.deepEqual(await list(), ['function increment(uint256 amount)', 'function deposit() payable']);
    const body = { contractId, formattedAbiFunction: 'function deposit() payable' };
    const off = await h.call('deactivate-contract-function', { headers, body });
    assert.equal(off.status, 201);
    assert.equal(off.body.message, `Function deposit() of contract ${contractId} is deactivated`);
    assert.deepEqual(await list(), ['function increment(uint256 amount)']);
    const again = await h.call('deactivate-contract-function', { headers, body });
    assert.equal(again.status, 201);
    assert.match(again.body.message, /was not active/);
    const foreign = await h.call('get-contract-activated-functions', { headers: other, body: { contractId } });
    assert.equal(foreign.status, 404);
  });
});
