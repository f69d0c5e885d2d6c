// Every field of a watch through bad input, refused with a 400 naming it, on creation and on update; a rewind past
// the next block to scan; an update of a subscription that does not exist.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FLEET_EVENTS } from '@mountain/testkit/eventFleet.ts';
import { devAccount } from '@mountain/testkit/lab/devAccounts.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const TO = [devAccount(6).address];
const FIRST_BLOCK = 40;

describe('what a subscription cannot watch', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await createHarness();
    key = (await h.project('Refusals')).apiKey;
  });
  after(() => h?.close());
  const call = (operation: string, body: unknown) => h.call(operation, { headers: apiKey(key), body });

  it('refuses what cannot be watched, naming the field', async () => {
    const base = {
      subscriptionName: 'Bad',
      networkId: 1337,
      address: CONTRACT,
      formattedAbiEvent: FLEET_EVENTS[0],
      initialBlockNumber: 0,
      scanInterval: 5,
    };
    const refused = async (body: object, field: string, message: RegExp) => {
      const res = await call('create-subscription', { ...base, ...body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      const detail = (res.body.details as { field: string; message: string }[]).find((d) => d.field === field);
      assert.ok(detail, `${field} named in ${JSON.stringify(res.body)}`);
      assert.match(detail.message, message);
    };
    await refused(
      { conditions: [{ field: 'amount', op: 'eq', value: '1' }] },
      'body.conditions[0].field',
      /"amount" is not a parameter of event Transfer\(address,address,uint256\) \(its parameters: from, to, value\)/,
    );
    await refused(
      { conditions: [{ field: 'to', op: 'gt', value: TO[0] }] },
      'body.conditions[0].op',
      /"gt" does not apply to an address \(use eq, neq, in\)/,
    );
    await refused({ conditions: [{ field: 'value', op: 'in', value: '5' }] }, 'body.conditions[0].value', /list/);
    await refused(
      { conditions: [{ field: 'value', op: 'gte', value: 'ten' }] },
      'body.conditions[0].value',
      /not an integer/,
    );
    await refused({ filters: { value: ['1'] } }, 'body.filters.value', /not indexed/);
    await refused({ filters: { to: ['0x12'] } }, 'body.filters.to[0]', /not an address/);
    await refused(
      { formattedAbiEvents: [FLEET_EVENTS[3]], filters: { to: [TO[0]] } },
      'body.filters.to',
      /is not a parameter of event Approval/,
    );
    await refused({ formattedAbiEvents: [FLEET_EVENTS[0]] }, 'body.formattedAbiEvents[0]', /same event/);
    await refused({ formattedAbiEvents: ['function f()'] }, 'body.formattedAbiEvents[0]', /must be an event/);
    const many = Array.from({ length: 1_000 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    await refused({ addresses: many }, 'body.addresses', /1001 distinct addresses with address: at most 1000/);
    await refused(
      { filters: { to: many.slice(0, 600), from: many.slice(0, 500) } },
      'body.filters',
      /1100 values: at most 1000/,
    );

    const made = await call('create-subscription', { ...base, initialBlockNumber: FIRST_BLOCK });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.eventNotifierSubscription.id;
    const update = await call('update-subscription', {
      id,
      conditions: [{ field: 'memo', op: 'eq', value: 'x' }],
    });
    assert.equal(update.status, 400, JSON.stringify(update.body));
    assert.match(update.body.message, /body\.conditions\[0\]\.field "memo" is not a parameter of event Transfer/);
    const ahead = await call('rewind-subscription', { id, fromBlock: FIRST_BLOCK + 1 });
    assert.equal(ahead.status, 400, JSON.stringify(ahead.body));
    assert.match(ahead.body.message, new RegExp(`body.fromBlock is past the next block to scan \\(${FIRST_BLOCK}\\)`));
    const unknown = await call('update-subscription', { id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(unknown.status, 404);
  });
});
