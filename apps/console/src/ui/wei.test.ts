import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parameterNames } from '../contracts/abiText.ts';
import { formatArgs, shortArg } from './format.ts';
import { coinOf, formatBalance, formatGwei, formatLimit, formatWei, isWei } from './wei.ts';

describe('wei amounts', () => {
  it('writes the coin amount with every digit and the exact wei', () => {
    assert.equal(coinOf('500000000000000000'), '0.5');
    assert.equal(coinOf('1'), '0.000000000000000001');
    assert.equal(coinOf('12000000000000000000'), '12');
    assert.equal(coinOf(0n), '0');
    assert.equal(formatWei('500000000000000000'), '0.5 ETH (500000000000000000 wei)');
    assert.equal(formatWei('2500000000000000000', 'POL'), '2.5 POL (2500000000000000000 wei)');
  });
  it('says "no value" for a limit of 0', () => {
    assert.equal(formatLimit('0'), 'no value');
    assert.equal(formatLimit('1000000000000000000'), '1 ETH (1000000000000000000 wei)');
  });
  it('takes the API form only: digits, no sign, no leading zero', () => {
    for (const ok of ['0', '1', '500000000000000000']) assert.ok(isWei(ok), ok);
    for (const bad of ['', '-1', '01', '1.5', '1e18', ' 1', '0x10']) assert.ok(!isWei(bad), bad);
  });
});

describe('values as the console shows them at a glance', () => {
  it('writes a balance to 4 decimals, rounded down, with dust said as such', () => {
    assert.equal(formatBalance('9999999761842334950846'), '9,999.9997 ETH');
    assert.equal(formatBalance('1000000000000000000', 'POL'), '1 POL');
    assert.equal(formatBalance('1500000000000000'), '0.0015 ETH');
    assert.equal(formatBalance('99999999999999'), '<0.0001 ETH');
    assert.equal(formatBalance('0'), '0 ETH');
  });
  it('writes a gas price in gwei with its wei', () => {
    assert.equal(formatGwei('1875000000'), '1.875 gwei (1875000000 wei)');
    assert.equal(formatGwei('3000000000'), '3 gwei (3000000000 wei)');
    assert.equal(formatGwei('7'), '0.000000007 gwei (7 wei)');
  });
  it('shortens arguments whole: hex by its ends, text cut, the list to its length', () => {
    assert.equal(shortArg('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'), '0x7099…79C8');
    assert.equal(shortArg('0x1234'), '0x1234');
    assert.equal(shortArg('a'.repeat(30)), `${'a'.repeat(22)}…`);
    assert.equal(formatArgs(['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '1000']), '0x7099…79C8, 1000');
    assert.equal(formatArgs(['1'.repeat(20), '2'.repeat(20), '3'.repeat(20)]).length, 48);
  });
  it('names the parameters of a signature, tuples and unnamed ones included', () => {
    const point = ['struct Point { int64 x; int64 y; }'];
    assert.deepEqual(parameterNames('function transfer(address to, uint256 amount) returns (bool)', []), [
      'to',
      'amount',
    ]);
    assert.deepEqual(parameterNames('function transfer(address,uint256)', []), ['', '']);
    assert.deepEqual(parameterNames('function f((uint256 a, bool b) pair, bytes calldata data, Point p)', point), [
      'pair',
      'data',
      'p',
    ]);
    assert.deepEqual(parameterNames('function deposit() payable', []), []);
    assert.deepEqual(parameterNames('receive() external payable', []), []);
  });
});
