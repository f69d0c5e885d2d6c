// The cost bounds of human-readable ABIs: shapes that would make the parser's work explode are refused with a 400
// naming the entry and the limit, at once, while other requests keep being answered; real-world ABIs still import.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseAbi } from 'viem';
import { parseFormattedAbi } from '#api/contracts/abi.ts';
import { abitypeCacheFound, abitypeCacheSize } from '#api/contracts/abitypeCache.ts';
import {
  ERC20_ABI,
  ERC721_ABI,
  ERC1155_ABI,
  inlineStructs,
  nestedTuples,
  SEAPORT_ABI,
  structChain,
  UNISWAP_V3_ROUTER_ABI,
} from '#api-testing/abiShapes.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

let address = 0x1000;
const nextAddress = () => `0x${(address++).toString(16).padStart(40, '0')}`;

describe('ABI cost bounds', () => {
  let h: Harness;
  let headers: Record<string, string>;
  let base: string;
  before(async () => {
    h = await createHarness();
    headers = apiKey((await h.project('ABIs')).apiKey);
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
  });
  after(() => h.close());

  const importAbi = (formattedAbi: string[]) =>
    h.call('import-contract', { headers, body: { networkId: 1337, address: nextAddress(), formattedAbi } });

  /** A 400 VALIDATION_FAILED naming `field`, whose message matches `message`. */
  const refused = (
    res: { status: number; body: { code?: string; details: { field: string; message: string }[] } },
    field: string,
    message: RegExp,
  ) => {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    assert.equal(res.body.details[0]?.field, field, JSON.stringify(res.body.details));
    assert.match(res.body.details[0]?.message ?? '', message);
  };

  it('refuses a struct chain 30 deep at once, while concurrent requests answer at once', async () => {
    const timed = async (path: string, init?: RequestInit) => {
      const started = performance.now();
      const res = await fetch(`${base}${path}`, init);
      return { status: res.status, body: await res.json(), ms: performance.now() - started };
    };
    const round = () =>
      Promise.all([
        timed('/public-api/v3/contract/import-contract', {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ networkId: 1337, address: nextAddress(), formattedAbi: structChain(30) }),
        }),
        timed('/healthz'),
        timed('/public-api/v3/contract', { headers }),
      ]);
    // A first round compiles the code on these paths (without the bounds, it never ends); the second is timed.
    // Here the answers take 10–100 ms; the bound is 1 s, far below what an unbounded expansion costs (minutes), so
    // that a machine busy with other work does not fail the test. bench:api measures the latencies.
    await round();
    const [imported, health, list] = await round();
    console.log(
      `struct chain 30: ${imported.ms.toFixed(1)} ms; /healthz ${health.ms.toFixed(1)} ms; get-contracts ${list.ms.toFixed(1)} ms`,
    );
    refused(imported, 'body.formattedAbi[12]', /^struct S12 expands to 12,286 components .*at most 10,000 per entry/);
    assert.ok(imported.ms < 1000, `import answered in ${imported.ms} ms`);
    assert.equal(health.status, 200);
    assert.ok(health.ms < 1000, `/healthz answered in ${health.ms} ms`);
    assert.equal(list.status, 200);
    assert.ok(list.ms < 1000, `get-contracts answered in ${list.ms} ms`);
  });

  it('refuses each limit with a 400 naming the entry and the limit', async () => {
    refused(await importAbi(Array(501).fill('function f()')), 'body.formattedAbi', /500/);
    refused(await importAbi([`function f(uint256 ${'a'.repeat(4100)})`]), 'body.formattedAbi[0]', /4096/);
    const structs = Array.from({ length: 201 }, (_, i) => `struct T${i} { uint256 x; }`);
    refused(await importAbi(structs), 'body.formattedAbi[200]', /struct definition number 201; at most 200/);
    refused(
      await importAbi(['function ok()', nestedTuples(17)]),
      'body.formattedAbi[1]',
      /nests tuples 17 levels deep; at most 16 levels/,
    );
    refused(
      await importAbi(['function f(uint256[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1] a)']),
      'body.formattedAbi[0]',
      /nests 17 levels deep; at most 16 levels/,
    );
    // Structs each one level and two array dimensions deeper than the last: D6 is 19 levels deep.
    const deep = ['struct D0 { uint256 x; }'];
    for (let i = 1; i < 9; i++) deep.push(`struct D${i} { D${i - 1}[][] a; }`);
    refused(await importAbi(deep), 'body.formattedAbi[6]', /^struct D6 nests 19 levels deep .*at most 16 levels/);
    // S11 is 6,142 components: one use fits, two do not.
    refused(
      await importAbi(structChain(11).slice(0, -1).concat('function f(S11 a)', 'function g(S11 b)')),
      'body.formattedAbi[13]',
      /brings the ABI's entries to 12,286 components in all; at most 10,000 per ABI/,
    );
    const wide = [`struct W { ${Array.from({ length: 40 }, (_, i) => `uint256 f${i};`).join(' ')} }`];
    const many = `function f(${Array.from({ length: 250 }, (_, i) => `W w${i}`).join(', ')})`;
    refused(
      await importAbi([...wide, many]),
      'body.formattedAbi[1]',
      /^the entry expands to 10,250 components .*W.*per entry/,
    );
    refused(
      await importAbi(['struct A { B b; }', 'struct B { A a; }', 'function f(A a)']),
      'body.formattedAbi[0]',
      /struct A contains itself \(A → B → A\)/,
    );
  });

  it('refuses a function or an event past the limits on activation and subscription', async () => {
    const imported = await importAbi(['struct P { uint256 x; }', 'function set(P p)']);
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    refused(
      await h.call('activate-contract-function', {
        headers,
        body: { contractId: imported.body.contract.id, formattedAbiFunction: nestedTuples(20, 'set') },
      }),
      'body.formattedAbiFunction',
      /nests tuples 20 levels deep; at most 16/,
    );
    const activated = await h.call('activate-contract-function', {
      headers,
      body: { contractId: imported.body.contract.id, formattedAbiFunction: 'set(P)' },
    });
    assert.equal(activated.status, 201, JSON.stringify(activated.body));
    refused(
      await h.call('create-subscription', {
        headers,
        body: {
          subscriptionName: 'Deep',
          networkId: 1337,
          address: nextAddress(),
          formattedAbiEvent: `event E(${'('.repeat(40)}uint256${')'.repeat(40)} x)`,
          initialBlockNumber: 0,
          scanInterval: 60,
        },
      }),
      'body.formattedAbiEvent',
      /nests tuples 40 levels deep; at most 16/,
    );
  });

  it('imports real-world ABIs, struct and inline forms, parsed as viem parses them, and activates their functions', async () => {
    const abis = [ERC20_ABI, ERC721_ABI, ERC1155_ABI, UNISWAP_V3_ROUTER_ABI, SEAPORT_ABI, inlineStructs(SEAPORT_ABI)];
    for (const abi of abis) {
      assert.deepEqual(JSON.parse(JSON.stringify(parseFormattedAbi(abi))), parseAbi(abi));
      // CPU time of this process (the API answers in it), not wall time: the bound holds on a busy machine too.
      const started = process.cpuUsage();
      const res = await importAbi(abi);
      const { user, system } = process.cpuUsage(started);
      const ms = (user + system) / 1000;
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.ok(ms < 500, `imported ${abi.length} entries with ${ms} ms of CPU`);
    }
    const seaport = await importAbi(SEAPORT_ABI);
    const fulfill = await h.call('activate-contract-function', {
      headers,
      body: {
        contractId: seaport.body.contract.id,
        formattedAbiFunction:
          'fulfillAvailableAdvancedOrders(AdvancedOrder[], CriteriaResolver[], FulfillmentComponent[][], FulfillmentComponent[][], bytes32, address, uint256)',
      },
    });
    assert.equal(fulfill.status, 201, JSON.stringify(fulfill.body));
    assert.match(
      fulfill.body.contractActivatedFunction.formattedAbiFunction,
      /^function fulfillAvailableAdvancedOrders/,
    );
    const { rows } = await h.db.query<{ abi: unknown[]; fn: { inputs: unknown[] } }>(
      `SELECT c.abi, f.abi_function AS fn FROM contract_activated_functions f JOIN contracts c ON c.id = f.contract_id
        WHERE f.id = $1`,
      [fulfill.body.contractActivatedFunction.id],
    );
    assert.equal(rows[0]?.abi.length, SEAPORT_ABI.length - 14, 'the parsed ABI is stored, without the structs');
    assert.equal(rows[0]?.fn.inputs.length, 7, 'the parsed function is stored with its activation');
  });

  it('leaves viem’s parameter cache as it was: ABIs sent to the API do not stay in memory', async () => {
    assert.ok(abitypeCacheFound, 'abitype’s parameter cache is found (see src/contracts/abitypeCache.ts)');
    const before = abitypeCacheSize();
    for (let i = 0; i < 5; i++) {
      const params = Array.from({ length: 50 }, (_, j) => `uint256 unique${i}x${j}`).join(', ');
      assert.equal((await importAbi([`function f${i}(${params})`])).status, 201);
    }
    assert.equal(abitypeCacheSize(), before);
  });
});
