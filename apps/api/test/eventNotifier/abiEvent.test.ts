import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  type AbiEvent,
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  getAddress,
  type Hex,
  parseAbiItem,
  toEventSelector,
} from 'viem';
import { checksumAddress } from '#api/chain/checksumAddress.ts';
import { createLogDecoder, toDecodedLog } from '#api/eventNotifier/abiEvent.ts';

const A = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const B = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Encodes a log of `signature` with `values` (in parameter order) as a node would return it. */
function encodeLog(event: AbiEvent, values: unknown[]): { topics: Hex[]; data: Hex } {
  const isIndexed = (i: number) => Boolean((event.inputs[i] as { indexed?: boolean }).indexed);
  const named = event.inputs.every((input) => input.name);
  const indexedValues = values.filter((_, i) => isIndexed(i));
  const args = named
    ? Object.fromEntries(event.inputs.flatMap((input, i) => (isIndexed(i) ? [[input.name, values[i]]] : [])))
    : indexedValues;
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[];
  const plain = event.inputs.filter((_, i) => !isIndexed(i));
  const data = encodeAbiParameters(plain, values.filter((_, i) => !isIndexed(i)) as never);
  return { topics, data };
}

describe('the scanner’s log decoder agrees with viem’s decodeEventLog', () => {
  for (const [signature, values] of [
    ['event Transfer(address indexed from, address indexed to, uint256 value)', [A, B, 5n]],
    [
      'event Msg(string indexed tag, string text, int8 n, bytes32 h, bool ok)',
      ['hi', 'hello', -5, `0x${'11'.repeat(32)}`, true],
    ],
    ['event Arr(uint256[] xs, (uint8 a, string b) t, address indexed who)', [[1n, 2n], { a: 3, b: 'x' }, B]],
    ['event Ping(uint256, address indexed)', [7n, B]],
    ['event Empty()', []],
  ] as const) {
    it(signature, () => {
      const event = parseAbiItem(signature) as AbiEvent;
      const { topics, data } = encodeLog(event, [...values]);
      const expected = decodeEventLog({ abi: [event], topics: topics as never, data, strict: true }).args;
      // Compared as stored (decodedLog): viem gives `undefined` args for an event without parameters, we give {}.
      assert.deepEqual(createLogDecoder(event)(topics, data), toDecodedLog(expected));
    });
  }

  it('skips logs of another event, or of the same selector with another layout', () => {
    const transfer = parseAbiItem(
      'event Transfer(address indexed from, address indexed to, uint256 value)',
    ) as AbiEvent;
    const erc721 = parseAbiItem(
      'event Transfer(address indexed from, address indexed to, uint256 indexed id)',
    ) as AbiEvent;
    const approval = parseAbiItem('event Approval(address indexed a, address indexed b, uint256 v)') as AbiEvent;
    const decode = createLogDecoder(transfer);
    const nft = encodeLog(erc721, [A, B, 1n]);
    assert.equal(decode(nft.topics, nft.data), undefined);
    const other = encodeLog(approval, [A, B, 1n]);
    assert.equal(decode(other.topics, other.data), undefined);
    const truncated = encodeLog(transfer, [A, B, 1n]);
    assert.equal(decode(truncated.topics, '0x1234'), undefined);
  });

  it('agrees on 3,000 random logs of static layouts, dirty words included (decoded directly, not by viem)', () => {
    const layouts = [
      'event S(address indexed a, uint8 indexed b, int16 c, uint48 d, uint56 e, int256 f, bool g, address h)',
      'event T(int8 indexed a, bool indexed b, int64 x)',
      'event U(uint256, int48 indexed, address)',
    ].map((s) => parseAbiItem(s) as AbiEvent);
    // Clean words (what a compiler emits) and dirty ones (any 32 bytes): both must decode, or fail, like viem.
    const word = () => {
      const kind = randomInt(4);
      if (kind === 0) return randomBytes(32).toString('hex');
      if (kind === 1) return `${'f'.repeat(randomInt(64))}${'0'.repeat(64)}`.slice(-64).padStart(64, 'f');
      if (kind === 2) return String(randomInt(2)).padStart(64, '0');
      return randomBytes(randomInt(1, 33)).toString('hex').padStart(64, '0');
    };
    let decoded = 0;
    for (let i = 0; i < 3_000; i++) {
      const event = layouts[i % layouts.length] as AbiEvent;
      const indexedCount = event.inputs.filter((p) => (p as { indexed?: boolean }).indexed).length;
      const topics = [toEventSelector(event), ...Array.from({ length: indexedCount }, () => `0x${word()}`)] as Hex[];
      const plainCount = event.inputs.length - indexedCount;
      const data = `0x${Array.from({ length: plainCount }, word).join('')}` as Hex;
      let expected: unknown;
      try {
        expected = toDecodedLog(decodeEventLog({ abi: [event], topics: topics as never, data, strict: true }).args);
      } catch {
        expected = undefined;
      }
      const got = createLogDecoder(event)(topics, data);
      assert.deepEqual(got, expected, `${event.name} ${topics} ${data}`);
      if (got !== undefined) decoded++;
    }
    // Both outcomes must be exercised: logs that decode, and logs skipped for a malformed word.
    assert.ok(decoded > 100 && decoded < 2_900, `decoded ${decoded} of 3,000`);
  });

  it('stores every integer as a decimal string, small ones included, in parameter order', () => {
    const event = parseAbiItem('event Mixed(uint256 big, int8 small, (uint8 a, int64 b) t, uint16[] xs)') as AbiEvent;
    const { topics, data } = encodeLog(event, [10n ** 30n, -5, { a: 7, b: -9n }, [1, 2]]);
    const stored = createLogDecoder(event)(topics, data) as Record<string, unknown>;
    assert.deepEqual(stored, {
      big: '1000000000000000000000000000000',
      small: '-5',
      t: { a: '7', b: '-9' },
      xs: ['1', '2'],
    });
    assert.deepEqual(Object.keys(stored), ['big', 'small', 't', 'xs']);
  });

  it('checksums addresses as viem’s getAddress does, from lower or mixed case, past its cache', () => {
    // More addresses than the cache holds, each asked twice (the second answer may come from the cache).
    const addresses = Array.from({ length: 12_000 }, () => randomBytes(20).toString('hex'));
    for (const hex of [...addresses, ...addresses.slice(0, 2_000)]) {
      const expected = getAddress(`0x${hex}`);
      assert.equal(checksumAddress(hex), expected);
      assert.equal(checksumAddress(expected.slice(2)), expected);
    }
  });
});
