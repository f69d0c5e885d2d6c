import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { ANVIL_DEPLOYER, compileGauge, deployGauge, GAUGE_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import { createWalletClient, http, keccak256, publicActions, toHex } from 'viem';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

describe('contract reads: call-contract-function on anvil', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let gauge: `0x${string}`;
  let headers: Record<string, string>;
  let contractId: number;
  let projectId: number;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    gauge = await deployGauge(anvil.url);
    const p = await h.project('Reads');
    projectId = p.project.id;
    headers = apiKey(p.apiKey);
    const res = await h.call('import-contract', {
      headers,
      body: { networkId: 1337, address: gauge, formattedAbi: GAUGE_FORMATTED_ABI },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    contractId = res.body.contract.id;
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  const call = (formattedAbiFunction: string, functionArgs: string[] = [], extra: object = {}, as = headers) =>
    h.call('call-contract-function', {
      headers: as,
      body: { contractId, formattedAbiFunction, functionArgs, ...extra },
    });

  async function setLevel(value: bigint): Promise<number> {
    const wallet = createWalletClient({ account: ANVIL_DEPLOYER, transport: http(anvil.url) }).extend(publicActions);
    const hash = await wallet.writeContract({
      address: gauge,
      abi: compileGauge().abi,
      functionName: 'setLevel',
      args: [value],
      chain: null,
    });
    const receipt = await wallet.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return Number(receipt.blockNumber);
  }

  it('reads at latest, and at an older block the value it had then', async () => {
    const before = await setLevel(7n);
    const after = await setLevel(9n);
    const latest = await call('function level() view returns (uint256)');
    assert.equal(latest.status, 200, JSON.stringify(latest.body));
    assert.deepEqual(latest.body, { result: ['9'], blockNumber: after });
    const old = await call('level()', [], { blockTag: String(before) });
    assert.deepEqual(old.body, { result: ['7'], blockNumber: before });
    const earlier = await call('level()', [], { blockTag: String(before - 1) });
    assert.deepEqual(earlier.body.result, ['0']);
    // anvil's safe and finalized blocks lag its head by more than this chain's few blocks: before the Gauge existed.
    for (const blockTag of ['safe', 'finalized']) {
      const tagged = await call('level()', [], { blockTag });
      assert.equal(tagged.body.code, 'CALL_REVERTED', `${blockTag}: ${JSON.stringify(tagged.body)}`);
      assert.match(tagged.body.message, /nothing was returned at block 0: contract 0x[0-9a-fA-F]{40} had no code/);
    }
  });

  it('encodes several outputs, addresses checksummed, bytes hex, tuples and arrays as JSON', async () => {
    const res = await call('snapshot()');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.result, [
      '9',
      ANVIL_DEPLOYER.address,
      'true',
      keccak256(toHex('gauge')),
      '0xc0ffee',
      'level',
    ]);
    const tuple = await call('function reading(string label) view returns (Reading)', ['now']);
    assert.equal(tuple.status, 200, JSON.stringify(tuple.body));
    assert.deepEqual(JSON.parse(tuple.body.result[0]), {
      at: String(tuple.body.blockNumber),
      value: '-9',
      label: 'now',
    });
    const arrays = await call('pairs(uint256)', ['3']);
    assert.deepEqual(
      arrays.body.result.map((r: string) => JSON.parse(r)),
      [
        [
          ['0', '0'],
          ['1', '1'],
          ['2', '4'],
        ],
        ['1', '-1', '1'],
      ],
    );
  });

  it('reads pure functions, with arguments converted as execute-transaction converts them', async () => {
    const res = await call('add(int256,int256)', ['-12', '0x10']);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.result, ['4']);
  });

  it('answers 422 CALL_REVERTED with the decoded reason: Error(string), custom error, panic', async () => {
    const reason = await call('checked(uint256)', ['0']);
    assert.equal(reason.status, 422);
    assert.equal(reason.body.code, 'CALL_REVERTED');
    assert.match(reason.body.message, /limit must be positive/);
    const custom = await call('checked(uint256)', ['3']);
    assert.equal(custom.body.code, 'CALL_REVERTED');
    assert.match(custom.body.message, /TooHigh\(9, 3\)/);
    const panic = await call('ratio(uint256,uint256)', ['1', '0']);
    assert.equal(panic.body.code, 'CALL_REVERTED');
    assert.match(panic.body.message, /panic|divi/i);
  });

  it('bounds the answer size and the gas', async () => {
    const small = await call('blob(uint256)', ['1000']);
    assert.equal(small.status, 200, JSON.stringify(small.body));
    assert.equal(small.body.result[0].length, 2 + 2000);
    const large = await call('blob(uint256)', ['100000']);
    assert.equal(large.status, 422, JSON.stringify(large.body));
    assert.equal(large.body.code, 'CALL_RESULT_TOO_LARGE');
    const started = Date.now();
    const endless = await call('spin()');
    assert.equal(endless.status, 422, JSON.stringify(endless.body));
    assert.equal(endless.body.code, 'CALL_REVERTED');
    assert.match(endless.body.message, /out of gas: a read may use 30000000 gas/);
    assert.ok(Date.now() - started < 10_000);
  });

  it('refuses non-view functions 400, unknown ones as activate does, and blocks above the head', async () => {
    const write = await call('setLevel(uint256)', ['1']);
    assert.equal(write.status, 400);
    assert.equal(write.body.code, 'FUNCTION_NOT_READABLE');
    assert.match(write.body.message, /setLevel\(uint256\) is nonpayable/);
    const unknown = await call('level(uint8)', ['1']);
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, 'FUNCTION_NOT_IN_ABI');
    const ahead = await call('level()', [], { blockTag: '1000000' });
    assert.equal(ahead.status, 422);
    assert.equal(ahead.body.code, 'BLOCK_NOT_REACHED');
    assert.match(ahead.body.message, /Block 1000000 is above the head of network 1337/);
  });

  it('names each bad field', async () => {
    const cases: [object, string][] = [
      [{ formattedAbiFunction: 'level()', functionArgs: [] }, 'body.contractId'],
      [{ contractId, functionArgs: [] }, 'body.formattedAbiFunction'],
      [{ contractId, formattedAbiFunction: 'level()' }, 'body.functionArgs'],
      [{ contractId, formattedAbiFunction: 'not a function', functionArgs: [] }, 'body.formattedAbiFunction'],
      [{ contractId, formattedAbiFunction: 'add(int256,int256)', functionArgs: ['1'] }, 'body.functionArgs'],
      [{ contractId, formattedAbiFunction: 'add(int256,int256)', functionArgs: ['1', 'x'] }, 'body.functionArgs[1]'],
      [{ contractId, formattedAbiFunction: 'level()', functionArgs: [], blockTag: 'pending' }, 'body.blockTag'],
      [{ contractId, formattedAbiFunction: 'level()', functionArgs: [], blockTag: '1'.repeat(17) }, 'body.blockTag'],
      [{ contractId, formattedAbiFunction: 'level()', functionArgs: [], extra: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await h.call('call-contract-function', { headers, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field.startsWith(field)),
        `${field}: ${JSON.stringify(res.body.details)}`,
      );
    }
  });

  it('lets readers read; another project’s key gets 404', async () => {
    const reader = await h.member(projectId, 'reader');
    const res = await call(
      'level()',
      [],
      {},
      { authorization: `Bearer ${reader.token}`, 'x-project-id': String(projectId) },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const other = apiKey((await h.project('Other')).apiKey);
    const foreign = await call('level()', [], {}, other);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'NOT_FOUND');
  });
});
