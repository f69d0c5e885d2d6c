// The subscription dialogs' watch: what the form sends, what it refuses before sending, and where the API's refusals
// show (each beside the control that holds the refused value, none lost).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { checkWatchForm, parametersOf, placeWatchErrors, type WatchForm, watchBody, watchFormOf } from './watchForm.ts';
import { watchSummary } from './watchSummary.ts';

const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const PAYMENT = 'event Payment(address indexed from, address indexed to, uint256 value, string memo)';

const form = (change: Partial<WatchForm> = {}): WatchForm => ({
  events: `\n${PAYMENT}\n\n`,
  addresses: `${TO}, ${OTHER.toLowerCase()}\n`,
  filters: [{ id: 1, parameter: 'to', values: `${TO}\n\n${OTHER}` }],
  conditions: [
    { id: 2, field: 'value', op: 'gte', value: ' 100 ' },
    { id: 3, field: 'memo', op: 'in', value: 'invoice, refund,' },
  ],
  ...change,
});

describe('the watch of a subscription dialog', () => {
  it('sends each list without its empty lines, and `in` values as a list', () => {
    assert.deepEqual(watchBody(form()), {
      formattedAbiEvents: [PAYMENT],
      addresses: [TO, OTHER.toLowerCase()],
      filters: { to: [TO, OTHER] },
      conditions: [
        { field: 'value', op: 'gte', value: '100' },
        { field: 'memo', op: 'in', value: ['invoice', 'refund'] },
      ],
    });
    assert.deepEqual(watchBody({ events: '', addresses: ' ', filters: [], conditions: [] }), {
      formattedAbiEvents: [],
      addresses: [],
      filters: {},
      conditions: [],
    });
  });

  it('refuses before sending what is not an event or an address, and a row left half filled', () => {
    assert.deepEqual(checkWatchForm(form()), {});
    assert.deepEqual(
      checkWatchForm(
        form({
          events: 'function transfer(address to)',
          addresses: '0x12',
          filters: [
            { id: 1, parameter: '', values: '' },
            { id: 2, parameter: 'to', values: TO },
            { id: 3, parameter: 'to', values: TO },
          ],
          conditions: [{ id: 4, field: '', op: 'in', value: ' , ' }],
        }),
      ),
      {
        events: '“function transfer(address to)” is not an event signature',
        addresses: '“0x12” is not an address (0x followed by 40 hex digits)',
        'filter.0.parameter': 'Choose an indexed parameter',
        'filter.0.values': 'At least one value',
        'filter.2.parameter': 'to is filtered above already',
        'condition.0.field': 'Choose a parameter',
        'condition.0.value': 'At least one value',
      },
    );
  });

  it('puts each of the API’s refusals beside its control, naming the refused value', () => {
    assert.deepEqual(
      placeWatchErrors(
        {
          'formattedAbiEvents[0]': 'is the same event as formattedAbiEvent',
          'addresses[1]': 'must match pattern',
          'filters.to[1]': 'is not an address (0x and 40 hex digits)',
          'filters.from': 'is not indexed in event Payment(…)',
          'conditions[0].op': '"gte" does not apply to an address (use eq, neq, in)',
          'conditions[0].value': 'is not an integer',
          'conditions[1].value[1]': 'is not a string',
          'conditions[1].field': '"memo" is not a parameter of event Transfer(…)',
          conditions: 'must NOT have more than 20 items',
          formattedAbiEvents: 'holds 20 events: at most 20 in all, formattedAbiEvent included',
          subscriptionName: 'is required',
        },
        form(),
      ),
      {
        events: `“${PAYMENT}” is the same event as formattedAbiEvent; The list holds 20 events: at most 20 in all, formattedAbiEvent included`,
        addresses: `“${OTHER.toLowerCase()}” must match pattern`,
        'filter.0.values': `“${OTHER}” is not an address (0x and 40 hex digits)`,
        filters: 'from is not indexed in event Payment(…)',
        'condition.0.op': '"gte" does not apply to an address (use eq, neq, in)',
        'condition.0.value': '“100” is not an integer',
        'condition.1.value': '“refund” is not a string',
        'condition.1.field': '"memo" is not a parameter of event Transfer(…)',
        conditions: 'The conditions must NOT have more than 20 items',
      },
    );
  });

  it('offers the parameters of the first event by the names the API keys them with', () => {
    assert.deepEqual(parametersOf(PAYMENT), [
      { key: 'from', type: 'address', indexed: true },
      { key: 'to', type: 'address', indexed: true },
      { key: 'value', type: 'uint256', indexed: false },
      { key: 'memo', type: 'string', indexed: false },
    ]);
    // One parameter without a name: every argument is keyed by its position.
    assert.deepEqual(
      parametersOf('event Moved(address indexed, uint256 amount)').map((p) => p.key),
      ['0', '1'],
    );
    assert.deepEqual(parametersOf('function transfer(address to)'), []);
    assert.deepEqual(parametersOf('event Broken(uint256'), []);
  });

  it('reads a subscription back into the form, and says what it watches in a few words', () => {
    const s = {
      formattedAbiEvents: [PAYMENT],
      addresses: [TO],
      filters: { to: [TO, OTHER] },
      conditions: [
        { field: 'value', op: 'gte', value: '100' },
        { field: 'memo', op: 'in', value: ['invoice', 'refund'] },
      ],
    } as unknown as EventNotifierSubscription;
    const back = watchFormOf(s);
    assert.deepEqual(watchBody(back), {
      formattedAbiEvents: [PAYMENT],
      addresses: [TO],
      filters: { to: [TO, OTHER] },
      conditions: s.conditions,
    });
    assert.deepEqual(watchSummary(s), [
      'and 1 more event',
      '2 contracts',
      'to: 2 values',
      'value ≥ 100',
      'memo in 2 values',
    ]);
  });
});
