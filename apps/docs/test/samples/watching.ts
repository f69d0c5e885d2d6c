// Docs sample checks: a subscription's events, contracts, filters and conditions (the watching page), and the
// subscription helpers the management page's update and rewind steps share.
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { ANVIL_DEPLOYER } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { getAddress, parseAbi, parseAbiItem } from 'viem';
import { DOCS_TOKEN_ADDRESS } from '../helpers/docsToken.ts';
import { answer, type Context, type Json, RECIPIENT, type Step, sameShape } from './context.ts';

const TRANSFER_EVENT = 'event Transfer(address indexed from, address indexed to, uint256 value)';
const TRANSFER_SIGNATURE = 'Transfer(address,address,uint256)';

/** One subscription of a project as get-subscriptions answers it. */
export async function subscriptionOf(c: Context, id: string, key = c.key): Promise<Json> {
  const res = await c.h.call('get-subscriptions', { headers: apiKey(key), query: { perPage: '100' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.eventNotifierSubscriptions as Json[]).find((s) => s.id === id);
}

/** Every record of a subscription, removed ones included. */
export async function allRecords(c: Context, subscriptionId: string, key = c.key): Promise<Json[]> {
  const res = await c.h.call('get-records', { headers: apiKey(key), body: { subscriptionId } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.eventNotifierRecords;
}

/**
 * The records of a subscription once it has scanned up to the chain's head as it is now, and `ready` holds for
 * them (every record delivered, a count reached…).
 */
export async function recordsThroughHead(
  c: Context,
  id: string,
  ready: (records: Json[]) => boolean = () => true,
  key = c.key,
): Promise<Json[]> {
  const head = Number(await readClient(c.anvil.url).getBlockNumber());
  return waitFor(
    async () => {
      const s = await subscriptionOf(c, id, key);
      if (s.lastScannedBlock === null || s.lastScannedBlock < head || s.rewindFromBlock !== null) return undefined;
      const records = await allRecords(c, id, key);
      return ready(records) ? records : undefined;
    },
    30_000,
    `subscription ${id} to scan through block ${head}`,
  );
}

/** The token's Transfer logs to RECIPIENT, read from the chain itself. */
async function transfersToRecipient(c: Context) {
  return readClient(c.anvil.url).getLogs({
    address: DOCS_TOKEN_ADDRESS,
    event: parseAbiItem(TRANSFER_EVENT),
    args: { to: RECIPIENT },
    fromBlock: 0n,
  });
}

export const watchingSteps: Record<string, Step> = {
  'create-filtered-subscription': {
    kind: 'run',
    check: async (out, c) => {
      const s = answer(out, c, 'create-subscription', 201).eventNotifierSubscription;
      // The watch in its canonical form: the filter's address checksummed, the condition's number a decimal string.
      assert.deepEqual(s.filters, { to: [RECIPIENT] });
      assert.deepEqual(s.conditions, [{ field: 'value', op: 'gte', value: '1000' }]);
      assert.deepEqual(s.addresses, []);
      assert.deepEqual(s.formattedAbiEvents, []);
      assert.equal(s.rewindFromBlock, null);
      assert.equal(s.webhookURL, null);
      c.values.filtered = s;
      // Exactly the token's transfers to RECIPIENT of at least 1000 (the chain also has one of 500 to it, and
      // transfers to other addresses): the two sample transfers of 1000.
      const chain = await transfersToRecipient(c);
      const expected = chain.filter((l) => (l.args.value as bigint) >= 1000n);
      assert.ok(
        chain.some((l) => l.args.value === 500n),
        'a transfer to RECIPIENT that the condition leaves out',
      );
      const found = await recordsThroughHead(c, s.id);
      assert.deepEqual(found.map((r) => `${r.transactionHash} ${r.logIndex}`).sort(), [
        ...expected.map((l) => `${l.transactionHash} ${l.logIndex}`).sort(),
      ]);
      assert.equal(found.length, 2);
      for (const r of found) {
        assert.equal(r.contractAddress, DOCS_TOKEN_ADDRESS);
        assert.equal(r.eventName, 'Transfer');
        assert.equal(r.eventSignature, TRANSFER_SIGNATURE);
        assert.equal(r.decodedLog.to, RECIPIENT);
        assert.equal(r.decodedLog.value, '1000');
        assert.equal(r.status, 'scanned', 'no webhook yet');
      }
      c.values.filteredRecords = found;
    },
  },
  'filtered-subscription': {
    kind: 'shape',
    check: (code, c) => {
      const { id: _id, ...shown } = JSON.parse(code).eventNotifierSubscription;
      sameShape(shown, c.values.filtered);
      for (const [k, v] of Object.entries(shown)) assert.deepEqual(v, c.values.filtered[k], k);
    },
  },
  'filtered-record': {
    kind: 'shape',
    check: (code, c) => {
      const shown = JSON.parse(code);
      const real = (c.values.filteredRecords as Json[])[0];
      sameShape(shown, real);
      for (const k of ['contractAddress', 'eventName', 'eventSignature', 'status']) assert.equal(shown[k], real[k], k);
      // `from` is the project's testnet wallet, another address on every run.
      const { from, ...rest } = shown.decodedLog;
      assert.equal(from, getAddress(from));
      assert.deepEqual(rest, { to: real.decodedLog.to, value: real.decodedLog.value });
      assert.equal(real.decodedLog.from, c.wallet);
      assert.equal(shown.eventNotifierSubscriptionId.length, real.eventNotifierSubscriptionId.length);
    },
  },
  'watch-several': {
    kind: 'shape',
    // The body is accepted as it is (in a project of its own), and the subscription records both events.
    check: async (code, c) => {
      const body = JSON.parse(code);
      const other = await c.h.project('Several events');
      const res = await c.h.call('create-subscription', { headers: apiKey(other.apiKey), body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      c.h.validator.assertResponse('create-subscription', 201, res.body);
      const s = res.body.eventNotifierSubscription;
      assert.deepEqual(s.addresses, body.addresses.map(getAddress));
      assert.deepEqual(s.formattedAbiEvents, body.formattedAbiEvents);
      assert.deepEqual(s.conditions, body.conditions);
      // An Approval of the token, beside its Transfers: each record says which event it is.
      const hash = await c.token.client.writeContract({
        address: DOCS_TOKEN_ADDRESS,
        abi: parseAbi(['function approve(address spender, uint256 amount) returns (bool)']),
        functionName: 'approve',
        args: [RECIPIENT, 5n],
      });
      await c.token.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      const transfers = await readClient(c.anvil.url).getLogs({
        address: DOCS_TOKEN_ADDRESS,
        event: parseAbiItem(TRANSFER_EVENT),
        fromBlock: 0n,
      });
      const found = await recordsThroughHead(
        c,
        s.id,
        (records) => records.some((r) => r.eventName === 'Approval'),
        other.apiKey,
      );
      assert.ok(found.every((r) => r.contractAddress === DOCS_TOKEN_ADDRESS));
      assert.equal(found.filter((r) => r.eventName === 'Transfer').length, transfers.length);
      assert.ok(found.filter((r) => r.eventName === 'Transfer').every((r) => r.eventSignature === TRANSFER_SIGNATURE));
      const approvals = found.filter((r) => r.eventName === 'Approval');
      assert.equal(approvals.length, 1);
      assert.equal(approvals[0].eventSignature, 'Approval(address,address,uint256)');
      assert.deepEqual(approvals[0].decodedLog, { owner: ANVIL_DEPLOYER.address, spender: RECIPIENT, value: '5' });
    },
  },
  'condition-refused': {
    kind: 'shape',
    check: async (code, c) => {
      const res = await c.h.call('create-subscription', {
        headers: apiKey(c.key),
        body: {
          subscriptionName: 'refused',
          networkId: 1337,
          address: DOCS_TOKEN_ADDRESS,
          formattedAbiEvent: TRANSFER_EVENT,
          conditions: [{ field: 'amount', op: 'gte', value: '1000' }],
          initialBlockNumber: 0,
          scanInterval: 5,
        },
      });
      assert.equal(res.status, 400);
      assert.deepEqual(JSON.parse(code), res.body);
    },
  },
};
