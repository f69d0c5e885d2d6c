import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coinOf, formatLimit, formatWei, isWei } from './wei.ts';

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
