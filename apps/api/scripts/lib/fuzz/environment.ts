// The environment the fuzzer sends its requests to: the real app on a loopback port, anvil, and realistic fixtures.
import http from 'node:http';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, deployCounter } from '@mountain/testkit/testContract.ts';
import fc from 'fast-check';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';
import type { Credentials } from './cases.ts';
import { loadOperations, type Operation } from './document.ts';
import { ABSENT, type Fixtures } from './values.ts';

/** Tables a refused request must leave exactly as they were. */
const WATCHED_TABLES = [
  'projects',
  'api_keys',
  'users',
  'memberships',
  'contracts',
  'contract_activated_functions',
  'transactions',
  'event_notifier_subscriptions',
  'event_notifier_records',
  'webhook_endpoints',
  'webhook_messages',
  'webhook_deliveries',
  'webhook_attempts',
  'graphile_worker._private_jobs',
];

/** Forwards JSON-RPC to anvil and counts the requests, so a test can tell whether a request reached the chain. */
async function startCountingProxy(target: string) {
  let calls = 0;
  const server = http.createServer((req, res) => {
    calls++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const upstream = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        });
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface FuzzEnvironment {
  h: Harness;
  anvil: AnvilHandle;
  port: number;
  /** JSON-RPC requests the API has sent to the chain so far. */
  chainCalls(): number;
  operations: Operation[];
  fixtures: Fixtures;
  /** By operation id: fixtures of that operation, in place of the shared ones of the same name. */
  operationFixtures: Record<string, Fixtures>;
  credentials: Credentials;
  /** Row count and content hash of every watched table. */
  snapshot(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The app on a fresh database, listening on a loopback port, with anvil (chain 1337), the test contract deployed,
 * imported and `increment` activated, a subscription, a transaction and two webhook endpoints, so that realistic
 * requests get real answers. No worker runs: jobs stay queued, so the watched tables change only by requests.
 */
export async function startFuzzEnvironment(): Promise<FuzzEnvironment> {
  const anvil = await startAnvil({ port: await freePort() });
  const chain = await startCountingProxy(anvil.url);
  let h: Harness | undefined;
  try {
    h = await createHarness({ rpcUrls: { 1337: chain.url } });
    const harness = h;
    const counter = await deployCounter(anvil.url);
    const p = await counterProject(harness, counter, ['increment']);
    const admin = await harness.member(p.projectId, 'admin');
    const transaction = await harness.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: 'fuzz-fixture' },
    });
    const event = COUNTER_FORMATTED_ABI.find((e) => e.startsWith('event ')) as string;
    const subscription = await harness.call('create-subscription', {
      headers: p.headers,
      body: {
        subscriptionName: 'Fuzz',
        networkId: 1337,
        address: counter,
        formattedAbiEvent: event,
        initialBlockNumber: 0,
        scanInterval: 60,
      },
    });
    // A second, doomed one for delete-subscription.
    const doomedSubscription = await harness.call('create-subscription', {
      headers: p.headers,
      body: {
        subscriptionName: 'Fuzz, doomed',
        networkId: 1337,
        address: counter,
        formattedAbiEvent: event,
        initialBlockNumber: 0,
        scanInterval: 60,
      },
    });
    // A loopback port in the allowed range (no worker runs: nothing is sent there).
    const webhookURL = 'http://127.0.0.1:9999/hook';
    // The first endpoint is changed and rotated by the fuzzer; the second, doomed one is deleted.
    const endpoints = [];
    for (const description of ['Fuzz', 'Fuzz, doomed']) {
      endpoints.push(
        await harness.call('create-webhook-endpoint', {
          headers: p.headers,
          body: { url: webhookURL, eventTypes: ['transaction.succeeded'], description },
        }),
      );
    }
    const fixtureAnswers = [transaction, subscription, doomedSubscription, ...endpoints];
    if (fixtureAnswers.some((answer) => answer.status !== 201))
      throw new Error(`fixtures not created: ${JSON.stringify(fixtureAnswers.map((answer) => answer.body))}`);
    const [endpointId, doomedEndpointId] = endpoints.map((e) => e.body.webhookEndpoint.id as string);
    await harness.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (harness.app.server.address() as { port: number }).port;
    const subscriptionId = subscription.body.eventNotifierSubscription.id as string;
    // State-changing functions other than the one the realistic executions use, which must stay active.
    const otherFunctions = COUNTER_FORMATTED_ABI.filter(
      (e) => e.startsWith('function ') && !e.includes('increment(') && !/\b(view|pure)\b/.test(e),
    );
    const otherEvents = COUNTER_FORMATTED_ABI.filter((e) => e.startsWith('event ') && e !== event);
    // By property name, as the document names them: the generators stay free of per-operation code.
    const fixtures: Fixtures = {
      networkId: fc.constant(1337),
      address: fc.oneof(fc.constant(counter), fc.stringMatching(/^0x[0-9a-f]{40}$/)),
      formattedAbi: fc.constant(COUNTER_FORMATTED_ABI),
      formattedAbiEvent: fc.constant(event),
      formattedAbiFunction: fc.constantFrom(...otherFunctions),
      contractId: fc.constant(p.contractId),
      contractActivatedFunctionId: fc.constant(p.ids.increment as number),
      functionArgs: fc.integer({ min: 0, max: 1000 }).map((n) => [String(n)]),
      idempotencyKey: fc.uuid(),
      // Pools: a wallet of the project (its primary testnet wallet) or none; a few wallets added at a time.
      mSystemWalletId: fc.constant(ABSENT),
      orderingKey: fc.oneof(fc.constant(ABSENT), fc.constantFrom('ledger', 'payouts')),
      count: fc.integer({ min: 1, max: 2 }),
      id: fc.constant(subscriptionId),
      subscriptionId: fc.constant(subscriptionId),
      transactionId: fc.constant(transaction.body.transaction.id as string),
      webhookURL: fc.constant(webhookURL),
      webhookEnabled: fc.boolean(),
      webhookMaxRetries: fc.integer({ min: 0, max: 20 }),
      subscriptionName: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')),
      initialBlockNumber: fc.integer({ min: 0, max: 100 }),
      scanInterval: fc.integer({ min: 5, max: 86_400 }),
      confirmations: fc.integer({ min: 0, max: 64 }),
      // What a subscription of the Counter's first event watches: more contracts, its other events, filters on
      // `by` (indexed in Incremented) and conditions on its integers.
      addresses: fc.array(fc.stringMatching(/^0x[0-9a-f]{40}$/), { maxLength: 5 }),
      formattedAbiEvents: fc.subarray(otherEvents),
      filters: fc.oneof(
        fc.constant({}),
        fc.record({ by: fc.array(fc.stringMatching(/^0x[0-9a-f]{40}$/), { minLength: 1, maxLength: 3 }) }),
      ),
      conditions: fc.array(
        fc.record({
          field: fc.constantFrom('amount', 'total'),
          op: fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte'),
          value: fc.integer({ min: 0, max: 1000 }).map(String),
        }),
        { maxLength: 3 },
      ),
      // The fixture subscription has scanned nothing: block 0 is the only one to go back to.
      fromBlock: fc.constant(0),
      redeliver: fc.boolean(),
      page: fc.integer({ min: 1, max: 3 }),
      perPage: fc.integer({ min: 1, max: 100 }),
      // Webhook endpoints.
      url: fc.constant(webhookURL),
      subscriptionIds: fc.constant([subscriptionId]),
      endpointId: fc.constant(endpointId),
      // Opaque: only a page's `nextCursor` is one, and the log of this environment has a single page.
      cursor: fc.constant(ABSENT),
    };
    // Where one name means different objects, or a request needs one of two optional fields.
    const operationFixtures: Record<string, Fixtures> = {
      'update-webhook-endpoint': { id: fc.constant(endpointId) },
      'rotate-webhook-endpoint-secret': { id: fc.constant(endpointId) },
      'delete-webhook-endpoint': { id: fc.constant(doomedEndpointId) },
      'delete-subscription': { id: fc.constant(doomedSubscription.body.eventNotifierSubscription.id as string) },
      // An endpoint or a subscription is required; the document can only say that each is optional.
      'get-webhook-messages': { endpointId: fc.constant(endpointId) },
      'replay-webhook-messages': { endpointId: fc.constant(endpointId) },
      // From 1.1 to 10 (the generator draws no number within a range of its own).
      'speed-up-transaction': { feeMultiplier: fc.double({ min: 1.1, max: 10, noNaN: true }) },
      // A read takes a view function of the contract, with its arguments (none, or one number).
      'call-contract-function': {
        formattedAbiFunction: fc.constant('function claimed(uint256 id) view returns (bool)'),
        blockTag: fc.constant('latest'),
      },
    };
    return {
      h: harness,
      anvil,
      port,
      chainCalls: chain.calls,
      operations: loadOperations(),
      fixtures,
      operationFixtures,
      credentials: { apiKey: p.headers['x-api-key'] as string, token: admin.token },
      async snapshot() {
        const { rows } = await harness.db.query<{ t: string; n: string; hash: string }>(
          WATCHED_TABLES.map(
            (t) =>
              `SELECT '${t}' AS t, count(*)::text AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS hash FROM ${t} x`,
          ).join(' UNION ALL '),
        );
        return Object.fromEntries(rows.map((r) => [r.t, `${r.n} rows, ${r.hash}`]));
      },
      async close() {
        await harness.close();
        await chain.close();
        await anvil.stop();
      },
    };
  } catch (error) {
    await h?.close();
    await chain.close();
    await anvil.stop();
    throw error;
  }
}
