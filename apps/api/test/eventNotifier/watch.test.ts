// What a subscription watches, checked and turned into a query: canonical values, topics (OR within a parameter,
// AND across, by position; dynamic types by their hash), and the conditions' comparisons (integers as integers,
// addresses and bytes in any case, strings exactly).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keccak256, pad, stringToHex, toEventSelector } from 'viem';
import { ApiError } from '#api/errors/ApiError.ts';
import { conditionMatcher, topicMatcher, topicsOf } from '#api/eventNotifier/scanning/logMatchers.ts';
import { checkWatch, eventsOf } from '#api/eventNotifier/watch.ts';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TRANSFER = 'event Transfer(address indexed from, address indexed to, uint256 value)';
const NOTE = 'event Note(string indexed tag, address indexed to, int64 delta, string text, bytes4 kind, bool ok)';

const watch = (extra: object) => checkWatch({ address: A, formattedAbiEvent: TRANSFER, ...extra });

describe('a subscription’s watch', () => {
  it('stores values in their canonical form: checksummed addresses, decimal integers, distinct', () => {
    const w = watch({
      addresses: [B.toLowerCase(), B, A.toLowerCase()],
      filters: { to: [B.toLowerCase(), B] },
      conditions: [{ field: 'value', op: 'in', value: [7, '0007', '8'] }],
    });
    assert.deepEqual(w.addresses, [B], 'distinct, checksummed, without `address` itself');
    assert.deepEqual(w.filters, { to: [B] });
    assert.deepEqual(w.conditions, [{ field: 'value', op: 'in', value: ['7', '7', '8'] }]);
  });

  it('puts each filter at its topic position: selectors first, OR within a parameter, nothing after the last', () => {
    const w = watch({ formattedAbiEvents: [], filters: { to: [A, B] } });
    const topics = topicsOf(w, eventsOf(w));
    assert.deepEqual(topics, [
      toEventSelector(TRANSFER),
      null,
      [pad(A.toLowerCase() as `0x${string}`), pad(B.toLowerCase() as `0x${string}`)],
    ]);
    const two = checkWatch({ address: A, formattedAbiEvent: NOTE, filters: { tag: ['vip'] } });
    assert.deepEqual(topicsOf(two, eventsOf(two)), [toEventSelector(NOTE), [keccak256(stringToHex('vip'))]]);
    const match = topicMatcher(topics);
    const word = (a: string) => pad(a.toLowerCase() as `0x${string}`);
    assert.equal(match([toEventSelector(TRANSFER), word(B), word(A)]), true);
    assert.equal(match([toEventSelector(TRANSFER), word(A), word(A).toUpperCase().replace('0X', '0x') as never]), true);
    assert.equal(
      match([toEventSelector(TRANSFER), word(A), word('0x0000000000000000000000000000000000000001')]),
      false,
    );
  });

  it('compares integers as integers, addresses and bytes in any case, strings and bools exactly', () => {
    const events = eventsOf({ formattedAbiEvent: NOTE, formattedAbiEvents: [] });
    const event = events[0] as (typeof events)[number];
    const test = (conditions: object[]) =>
      conditionMatcher(
        checkWatch({ address: A, formattedAbiEvent: NOTE, conditions: conditions as never }).conditions,
        event,
      ) as (args: Record<string, unknown>) => boolean;
    const log = { tag: '0x01', to: A, delta: '-10', text: 'Hello', kind: '0xABCDEF01', ok: true };
    assert.equal(test([{ field: 'delta', op: 'gt', value: '-11' }])(log), true);
    assert.equal(test([{ field: 'delta', op: 'lt', value: '-9' }])(log), true, '-10 < -9 as integers');
    assert.equal(test([{ field: 'delta', op: 'gte', value: '9' }])(log), false, 'not compared as text');
    assert.equal(test([{ field: 'delta', op: 'in', value: ['-10', '5'] }])(log), true);
    assert.equal(test([{ field: 'to', op: 'eq', value: A.toLowerCase() }])(log), true);
    assert.equal(test([{ field: 'to', op: 'neq', value: B }])(log), true);
    assert.equal(test([{ field: 'kind', op: 'eq', value: '0xabcdef01' }])(log), true);
    assert.equal(test([{ field: 'text', op: 'eq', value: 'hello' }])(log), false, 'strings exactly');
    assert.equal(test([{ field: 'text', op: 'in', value: ['Hi', 'Hello'] }])(log), true);
    assert.equal(test([{ field: 'ok', op: 'eq', value: true }])(log), true);
    assert.equal(
      test([
        { field: 'ok', op: 'eq', value: true },
        { field: 'delta', op: 'gt', value: '0' },
      ])(log),
      false,
      'every condition must hold',
    );
  });

  it('refuses what it cannot compare: an indexed string, a bool ordered, an int out of its range', () => {
    const refusal = (conditions: object[]) => {
      try {
        checkWatch({ address: A, formattedAbiEvent: NOTE, conditions: conditions as never });
      } catch (error) {
        assert.ok(error instanceof ApiError);
        return error.message;
      }
      assert.fail('accepted');
    };
    assert.match(refusal([{ field: 'tag', op: 'eq', value: 'vip' }]), /"tag" is indexed: the log holds only its hash/);
    assert.match(refusal([{ field: 'ok', op: 'gt', value: true }]), /"gt" does not apply to a bool \(use eq, neq\)/);
    assert.match(refusal([{ field: 'delta', op: 'eq', value: String(2n ** 63n) }]), /outside the range of int64/);
    assert.match(refusal([{ field: 'kind', op: 'eq', value: '0x01' }]), /is not bytes4/);
  });
});
