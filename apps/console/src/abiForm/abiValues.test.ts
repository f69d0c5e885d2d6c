// The execute form's conversion of every Solidity type: what it sends is what the API reads back, and it refuses
// what the API would refuse, naming the same path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AbiFunction, decodeFunctionData, parseAbiItem } from 'viem';
import { emptyValue, FormErrors, toFunctionArgs } from './abiValues.ts';

const fn = (signature: string) => parseAbiItem(signature) as AbiFunction;
const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function errorsOf(f: AbiFunction, values: Parameters<typeof toFunctionArgs>[1]): Record<string, string> {
  try {
    toFunctionArgs(f, values);
  } catch (error) {
    assert.ok(error instanceof FormErrors);
    return error.errors;
  }
  assert.fail('expected the values to be refused');
}

describe('toFunctionArgs', () => {
  it('encodes every elementary type and sends each as the API reads it', () => {
    const f = fn('function all(uint8 a, int256 b, bool c, address d, string e, bytes f, bytes4 g, uint256 h)');
    const { functionArgs, data } = toFunctionArgs(f, [
      '255',
      '-12',
      'true',
      ADDRESS,
      ' spaced ',
      '0xabcd',
      '0x01020304',
      '0xff',
    ]);
    assert.deepEqual(functionArgs, ['255', '-12', 'true', ADDRESS, ' spaced ', '0xabcd', '0x01020304', '0xff']);
    const decoded = decodeFunctionData({ abi: [f], data });
    assert.deepEqual(decoded.args, [255, -12n, true, ADDRESS, ' spaced ', '0xabcd', '0x01020304', 255n]);
  });

  it('sends arrays and tuples as JSON, nested, and encodes them', () => {
    const f = fn('function batch((address to, uint256 amount)[] transfers, uint16[2] pair, (bool, string) note)');
    const values = [
      [
        [ADDRESS, '1000'],
        [ADDRESS, '2'],
      ],
      ['1', '2'],
      ['true', 'hello'],
    ];
    const { functionArgs, data } = toFunctionArgs(f, values);
    assert.deepEqual(functionArgs, [
      JSON.stringify([
        [ADDRESS, '1000'],
        [ADDRESS, '2'],
      ]),
      '["1","2"]',
      '[true,"hello"]',
    ]);
    const decoded = decodeFunctionData({ abi: [f], data });
    assert.deepEqual(decoded.args, [
      [
        { to: ADDRESS, amount: 1000n },
        { to: ADDRESS, amount: 2n },
      ],
      [1, 2],
      [true, 'hello'],
    ]);
  });

  it('names each wrong value by the path the API uses', () => {
    const f = fn('function f(uint8 small, (address to, uint256 amount) order, bool[] flags, bytes2 tag)');
    assert.deepEqual(errorsOf(f, ['256', ['0x12', '-1'], ['yes'], '0x01']), {
      '[0]': 'is out of range for uint8 (0 to 255)',
      '[1].to': 'must be an address (0x followed by 40 hex digits)',
      '[1].amount':
        'is out of range for uint256 (0 to 115792089237316195423570985008687907853269984665640564039457584007913129639935)',
      '[2][0]': 'must be true or false',
      '[3]': 'must be exactly 2 bytes, got 1',
    });
  });

  it('refuses a fixed array of the wrong length and an empty integer', () => {
    const f = fn('function f(uint256[3] xs)');
    assert.deepEqual(errorsOf(f, [['1', '']]), {
      '[0]': 'must have exactly 3 elements',
      '[0][1]': 'must be an integer in decimal or 0x hex',
    });
  });
});

describe('emptyValue', () => {
  it('starts fixed arrays full, dynamic arrays empty, tuples with their components and bools false', () => {
    const f = fn('function f(uint8[2] a, string[] b, (bool x, uint256 y) c)');
    assert.deepEqual(f.inputs.map(emptyValue), [['', ''], [], ['false', '']]);
  });
});
