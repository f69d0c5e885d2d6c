// Runs the code samples of the docs pages against a real API server, worker, PostgreSQL and anvil, the way a
// reader would: each sample reads its values from the environment variables the pages name, and what it prints or
// answers is checked here. Blocks that are not programs (answers, payloads, ABIs) are compared with what the server
// really answers. See "Executable samples" in apps/docs/README.md.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as client from '@mountain/public-api-client';
import * as webhooks from '@mountain/webhook-sdk';
import pg from 'pg';
import { createPublicClient, http, parseAbi, parseAbiItem } from 'viem';
import { type AnvilHandle, startAnvil } from '../../api/src/chain/anvil.ts';
import { REPO_ROOT } from '../../api/src/config/config.ts';
import { freePort } from '../../api/src/lib/ports.ts';
import { apiKey, bearer, createHarness, type Harness } from '../../api/test/helpers/harness.ts';
import { settled, waitFor } from '../../api/test/helpers/transactionFlow.ts';
import { type Delivery, type Receiver, startReceiver } from '../../api/test/helpers/webhookReceiver.ts';
import { DOCS_TOKEN_ADDRESS, deployDocsToken } from './helpers/docsToken.ts';
import {
  allSamples,
  DOCS_ROOT,
  jsonDocuments,
  type Output,
  pages,
  runFile,
  type Sample,
  startFile,
  workDir,
  writeSample,
} from './helpers/samples.ts';

const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TRANSFER_ABI = 'function transfer(address to, uint256 amount) returns (bool)';

/** A JSON answer: its shape is checked against the OpenAPI document at run time, not by the compiler. */
// biome-ignore lint/suspicious/noExplicitAny: see above
type Json = any;

/** What the steps share: the server, the chain, the reader's environment and what earlier steps returned. */
interface Context {
  h: Harness;
  anvil: AnvilHandle;
  token: Awaited<ReturnType<typeof deployDocsToken>>;
  env: Record<string, string>;
  projectId: number;
  key: string;
  wallet: `0x${string}`;
  /** A real webhook, as the worker delivered it, with its subscription's secret. */
  delivery?: Delivery & { secret: string };
  values: Record<string, Json>;
}

/** One step per tagged block: `run` blocks are executed and `check` sees their output; `shape` blocks are parsed. */
type Step =
  | {
      kind: 'run';
      /** Extra environment for this sample. */
      env?: (c: Context) => Record<string, string> | Promise<Record<string, string>>;
      /** A script that imports the sample (`./<id>.ts`) and calls what it exports. */
      driver?: string;
      /** The sample serves until stopped: `serve` talks to it on `PORT`, then it gets SIGTERM. */
      serve?: (c: Context, port: number) => Promise<void>;
      /** Independent of its neighbours: started together with the concurrent steps right after it. */
      concurrent?: boolean;
      /** Work done before the sample, such as the setup a reader would already have. */
      prepare?: (c: Context) => Promise<void>;
      check: (out: Output, c: Context) => void | Promise<void>;
    }
  | { kind: 'shape'; check: (code: string, c: Context) => void | Promise<void> };

/** The URL of the test database (the admin CLI and the SQL sample use it as a reader would use theirs). */
const databaseUrl = (c: Context) =>
  (c.h.db.pool as unknown as { options: { connectionString: string } }).options.connectionString;

const json = (out: Output): Json => {
  const [document] = jsonDocuments(out.stdout);
  assert.ok(document, `no JSON in the output:\n${out.stdout}\n${out.stderr}`);
  return document;
};
const lines = (out: Output) => out.stdout.trim().split('\n');
const ok = (out: Output) => assert.equal(out.code, 0, `exit ${out.code}\n${out.stdout}\n${out.stderr}`);

/** Every key of `example` is in `real`, with a value of the same JSON type, recursively (arrays: first item). */
function sameShape(example: unknown, real: unknown, at = '$'): void {
  const type = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  assert.equal(type(example), type(real), `${at}: the page shows ${type(example)}, the server answers ${type(real)}`);
  if (Array.isArray(example) && Array.isArray(real) && example.length > 0 && real.length > 0) {
    sameShape(example[0], real[0], `${at}[0]`);
  } else if (type(example) === 'object') {
    for (const [k, v] of Object.entries(example as object)) {
      assert.ok(k in (real as object), `${at}.${k} is on the page but not in the server's answer`);
      sameShape(v, (real as Record<string, unknown>)[k], `${at}.${k}`);
    }
  }
}

/** Signed delivery headers as a receiver gets them. */
const signedHeaders = (d: Delivery) => ({
  'content-type': 'application/json',
  'webhook-id': d.headers['webhook-id'] as string,
  'webhook-timestamp': d.headers['webhook-timestamp'] as string,
  'webhook-signature': d.headers['webhook-signature'] as string,
});
const tamper = (body: string) => body.replace('"value":"1000"', '"value":"9000"');

/** Posts the real delivery, then a tampered copy, to a running receiver; it must take one and refuse the other. */
async function postDeliveries(c: Context, url: string) {
  const d = c.delivery as Delivery;
  const good = await fetch(url, { method: 'POST', headers: signedHeaders(d), body: d.body });
  assert.equal(good.status, 204, await good.text());
  const bad = await fetch(url, { method: 'POST', headers: signedHeaders(d), body: tamper(d.body) });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).code, 'NO_MATCHING_SIGNATURE');
}

const deliveryEnv = (c: Context) => ({
  MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '',
  DELIVERY: JSON.stringify({ body: c.delivery?.body, headers: signedHeaders(c.delivery as Delivery) }),
});

/** The lines a receiver prints for the real delivery: the record id and the decoded Transfer. */
function printedTransfer(out: Output, c: Context) {
  const id = c.delivery?.headers['webhook-id'] as string;
  assert.match(out.stdout, new RegExp(`${id} Transfer \\{`));
  assert.match(out.stdout, new RegExp(`to: '${RECIPIENT}'`));
  assert.match(out.stdout, /value: '1000'/);
  assert.equal(out.stdout.split(id).length, 2, 'only the genuine delivery reached the handler');
}

async function records(c: Context, subscriptionId: string) {
  const res = await c.h.call('get-records', { headers: apiKey(c.key), body: { subscriptionId } });
  assert.equal(res.status, 200);
  return res.body.eventNotifierRecords as { status: string; notificationFailureCount: number; decodedLog: Json }[];
}

/** A subscription whose receiver always answers 500, with its records failed after one attempt each. */
async function failingSubscription(c: Context) {
  const receiver = await startReceiver(() => ({ status: 500 }));
  c.values.failingReceiver = receiver;
  const res = await c.h.call('create-subscription', {
    headers: apiKey(c.key),
    body: {
      subscriptionName: 'failing-receiver',
      networkId: 1337,
      address: DOCS_TOKEN_ADDRESS,
      formattedAbiEvent: 'event Transfer(address indexed from, address indexed to, uint256 value)',
      initialBlockNumber: 0,
      scanInterval: 5,
      webhookURL: receiver.url,
      webhookMaxRetries: 0,
    },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const id = res.body.eventNotifierSubscription.id as string;
  // The token's six transfers (see events-get-records): each delivered once, refused, and failed.
  await waitFor(async () => {
    const all = await records(c, id);
    return all.length === 6 && all.every((r) => r.status === 'failed') ? true : undefined;
  });
  return id;
}

const steps: Record<string, Step> = {
  'start-output': {
    kind: 'shape',
    // Line by line what scripts/start.ts prints, with each interpolated value standing for anything.
    check: (code) => {
      const source = readFileSync(path.join(REPO_ROOT, 'scripts/start.ts'), 'utf8');
      const from = source.indexOf('Mountain is running.');
      const template = source.slice(from, source.indexOf('`);', from));
      const page = code.trimEnd().split('\n');
      const printed = template.split('\n');
      assert.equal(page.length, printed.length, 'as many lines as npm start prints');
      for (const [i, line] of page.entries()) assert.match(line, templateLine(printed[i] as string), `line ${i + 1}`);
    },
  },
  'reader-env': {
    kind: 'shape',
    // The variables the reader exports are the ones every sample reads (and this test sets).
    check: (code, c) => {
      const names = [...code.matchAll(/^export (\w+)=/gm)].map((m) => m[1]);
      assert.deepEqual(names, Object.keys(c.env).slice(0, 3));
      assert.match(code, new RegExp(`MOUNTAIN_API_URL='${client.DEFAULT_BASE_URL}'`));
    },
  },
  'base-url': {
    kind: 'shape',
    check: (code) => {
      assert.equal(code.trim(), client.DEFAULT_BASE_URL);
      assert.ok(code.trim().endsWith('/public-api/v3'));
    },
  },
  'auth-api-key': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-project-detail', 200, body);
      assert.equal(body.data.project.id, c.projectId);
      c.values.projectDetail = body;
    },
  },
  'key-format': {
    kind: 'shape',
    check: (code, c) => {
      const [test, live] = code
        .trim()
        .split('\n')
        .map((line) => new RegExp(`^${line.replace(/<(\d+) character \w+>/g, '[A-Za-z0-9]{$1}')}$`));
      assert.match(c.key, test as RegExp);
      assert.match(c.key.replace(/^mtn_test_/, 'mtn_live_'), live as RegExp);
      assert.match(c.values.projectDetail.data.project.apiKey, new RegExp(`^${c.key.slice(0, 21)}\\*{8}$`));
    },
  },
  'first-call-curl': {
    kind: 'run',
    check: (out, c) => assert.deepEqual(json(out), c.values.projectDetail),
  },
  'project-detail': {
    kind: 'shape',
    check: (code, c) => {
      const example = JSON.parse(code);
      c.h.validator.assertResponse('get-project-detail', 200, example);
      sameShape(example, c.values.projectDetail);
      assert.equal(example.data.project.apiKey.length, c.values.projectDetail.data.project.apiKey.length);
    },
  },
  'system-wallets': {
    kind: 'shape',
    check: (code, c) => {
      const example = JSON.parse(code);
      c.h.validator.assertResponse('get-project-detail', 200, example);
      sameShape(example, c.values.projectDetail);
      for (const w of ['mSystemWalletMainnet', 'mSystemWalletTestnet']) {
        const omit = ({ id: _id, address: _address, ...rest }: Json) => rest;
        assert.deepEqual(omit(example.data[w]), omit(c.values.projectDetail.data[w]));
      }
    },
  },
  'auth-access-token': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-projects', 200, body);
      assert.deepEqual(
        body.data.projects.map((p: { id: number }) => p.id),
        [c.projectId],
      );
    },
  },
  'auth-401': {
    kind: 'shape',
    check: async (code, c) => {
      const res = await c.h.call('get-project-detail');
      assert.equal(res.status, 401);
      assert.deepEqual(JSON.parse(code), res.body);
    },
  },
  'auth-403': {
    kind: 'shape',
    check: async (code, c) => {
      const reader = await c.h.member(c.projectId, 'reader');
      const res = await c.h.call('import-contract', {
        headers: bearer(reader.token),
        body: { networkId: 1337, address: DOCS_TOKEN_ADDRESS, formattedAbi: [TRANSFER_ABI] },
      });
      assert.equal(res.status, 403);
      assert.deepEqual(JSON.parse(code), res.body);
    },
  },
  'admin-cli': {
    kind: 'run',
    concurrent: true,
    env: (c) => ({
      DATABASE_URL: databaseUrl(c),
      MASTER_KEY: c.h.masterKey.toString('base64'),
      TOKEN_SIGNING_KEY: c.h.tokenSigningKey.toString('base64'),
    }),
    check: async (out, c) => {
      ok(out);
      const printed = out.stdout.split('\n').filter((l) => !l.startsWith('>') && l.trim() !== '');
      assert.equal(printed[0], 'project 2 "Payments" created');
      assert.match(printed[1] ?? '', /^API key \(shown once, store it now\): mtn_test_[A-Za-z0-9]{44}$/);
      assert.match(printed[2] ?? '', /^user \d+ <dev@example\.com> created$/);
      assert.match(printed[3] ?? '', /^user \d+ is editor of project 2$/);
      assert.match(printed[4] ?? '', /^access token for user \d+, expires /);
      const token = printed[5] as string;
      const projects = await c.h.call('get-projects', { headers: bearer(token) });
      assert.deepEqual(
        projects.body.data.projects.map((p: { projectName: string }) => p.projectName),
        ['Payments'],
      );
      const key = (printed[1] as string).split(': ')[1] as string;
      const detail = await c.h.call('get-project-detail', { headers: apiKey(key) });
      assert.equal(detail.status, 200, JSON.stringify(detail.body));
      assert.equal(detail.body.data.project.projectName, 'Payments');
    },
  },
  'first-call-fetch': {
    kind: 'run',
    concurrent: true,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`Demo project ${c.wallet}`]);
    },
  },
  'first-call-client': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['Demo project']);
    },
  },
  'client-api-key': {
    kind: 'run',
    concurrent: true,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [c.env.MOUNTAIN_API_URL]);
    },
  },
  'client-access-token': {
    kind: 'run',
    concurrent: true,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`${c.projectId} Demo project`]);
    },
  },
  'import-contract': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('import-contract', 201, body);
      c.values.contract = body;
      c.env.MOUNTAIN_CONTRACT_ID = String(body.contract.id);
    },
  },
  'contract-imported': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.contract),
  },
  'get-contracts': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-contracts', 200, body);
      assert.deepEqual(body.contracts, [c.values.contract.contract]);
    },
  },
  'client-errors': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['Already imported']);
    },
  },
  'client-request-options': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), [`1337 ${DOCS_TOKEN_ADDRESS}`]);
    },
  },
  'formatted-abi': {
    kind: 'shape',
    check: async (code, c) => {
      const entries = JSON.parse(code) as string[];
      assert.equal(parseAbi(entries).length, entries.length);
      const other = await c.h.project('ABI check');
      const res = await c.h.call('import-contract', {
        headers: apiKey(other.apiKey),
        body: { networkId: 1337, address: DOCS_TOKEN_ADDRESS, formattedAbi: entries },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    },
  },
  'activate-function': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('activate-contract-function', 201, body);
      c.values.activated = body;
      c.env.MOUNTAIN_FUNCTION_ID = String(body.contractActivatedFunction.id);
    },
  },
  'function-activated': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.activated),
  },
  'get-activated-functions': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-contract-activated-functions', 200, body);
      assert.deepEqual(body.contractActivatedFunctions, [c.values.activated.contractActivatedFunction]);
    },
  },
  'execute-transaction': {
    kind: 'run',
    // The reader's wallet holds tokens; and one transaction has failed, for the status filters below: two
    // transfers of the whole balance both pass simulation, then the second reverts on chain.
    prepare: async (c) => {
      await c.token.send(c.wallet, 500n);
      const chain = createPublicClient({ transport: http(c.anvil.url) });
      await chain.request({ method: 'evm_setAutomine' as never, params: [false] as never });
      try {
        const sent = [];
        for (const key of ['setup-a', 'setup-b']) {
          const res = await c.h.call('execute-transaction', {
            headers: apiKey(c.key),
            body: {
              contractActivatedFunctionId: Number(c.env.MOUNTAIN_FUNCTION_ID),
              functionArgs: [RECIPIENT, '500'],
              idempotencyKey: key,
            },
          });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          sent.push(res.body.transaction.id as string);
        }
        for (const id of sent) {
          await waitFor(async () => {
            const res = await c.h.call('get-transaction', { headers: apiKey(c.key), query: { transactionId: id } });
            return res.body.transaction.status === 'broadcasted' ? true : undefined;
          });
        }
        await chain.request({ method: 'evm_mine' as never, params: [] as never });
      } finally {
        await chain.request({ method: 'evm_setAutomine' as never, params: [true] as never });
      }
      const done = await Promise.all(
        ['setup-a', 'setup-b'].map(async (key) => {
          const again = await c.h.call('execute-transaction', {
            headers: apiKey(c.key),
            body: {
              contractActivatedFunctionId: Number(c.env.MOUNTAIN_FUNCTION_ID),
              functionArgs: [RECIPIENT, '500'],
              idempotencyKey: key,
            },
          });
          return settled(c.h, apiKey(c.key), again.body.transaction.id);
        }),
      );
      c.values.failed = done.find((t) => t.status === 'reverted');
      assert.ok(c.values.failed, JSON.stringify(done));
      await c.token.send(c.wallet, 1_000_000n);
    },
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('execute-transaction', 201, body);
      assert.equal(body.transaction.status, 'created');
      c.values.transaction = body.transaction;
      c.env.MOUNTAIN_TRANSACTION_ID = body.transaction.id;
    },
  },
  'transaction-created': {
    kind: 'shape',
    check: (code, c) => {
      const { id, ...example } = JSON.parse(code).transaction;
      const real = c.values.transaction;
      assert.match(id, /^[0-9a-f-]{36}$/);
      for (const [k, v] of Object.entries(example)) assert.deepEqual(v, real[k], k);
    },
  },
  'get-transaction': {
    kind: 'run',
    prepare: async (c) => {
      await settled(c.h, apiKey(c.key), c.env.MOUNTAIN_TRANSACTION_ID as string);
    },
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-transaction', 200, body);
      assert.equal(body.transaction.status, 'succeeded', body.transaction.errorMessage);
      c.values.succeeded = body.transaction;
    },
  },
  'transaction-succeeded': {
    kind: 'shape',
    check: (code, c) => {
      const example = JSON.parse(code).transaction;
      sameShape(example, c.values.succeeded);
      assert.equal(example.status, c.values.succeeded.status);
      assert.equal(example.errorMessage, c.values.succeeded.errorMessage);
      assert.equal(example.transactionHash.length, 66);
    },
  },
  'client-operations': {
    kind: 'run',
    check: (out, c) => {
      ok(out);
      const [address, final] = lines(out);
      assert.equal(address, c.wallet);
      assert.match(final ?? '', /^succeeded 0x[0-9a-f]{64}$/);
    },
  },
  'list-failed-transactions': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-transactions', 200, body);
      assert.deepEqual(body.meta, { pageNumber: 1, perPage: 20, totalPage: 1, totalItems: 1 });
      assert.equal(body.data.transactions[0].id, c.values.failed.id);
    },
  },
  'status-filter': {
    kind: 'run',
    check: (out, c) => {
      const [failed, reverted] = jsonDocuments(out.stdout) as Json[];
      for (const body of [failed, reverted]) c.h.validator.assertResponse('get-transactions', 200, body);
      assert.deepEqual(
        failed.data.transactions.map((t: { id: string }) => t.id),
        [c.values.failed.id],
      );
      assert.deepEqual(
        reverted.data.transactions.map((t: { status: string }) => t.status),
        ['reverted'],
      );
    },
  },
  'client-pagination': {
    kind: 'run',
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`${c.values.failed.id} reverted ${c.values.failed.errorMessage}`]);
      assert.match(c.values.failed.errorMessage, /InsufficientBalance\(0, 500\)/);
    },
  },
  'create-subscription': {
    kind: 'run',
    env: async (c) => {
      c.values.receiverPort = await freePort();
      return { PORT: String(c.values.receiverPort) };
    },
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('create-subscription', 201, body);
      const s = body.eventNotifierSubscription;
      assert.equal(s.webhookURL, `http://127.0.0.1:${c.values.receiverPort}/`);
      c.values.subscription = s;
      c.env.MOUNTAIN_SUBSCRIPTION_ID = s.id;
      c.env.MOUNTAIN_WEBHOOK_SECRET = s.webhookSecret;
    },
  },
  'subscription-created': {
    kind: 'shape',
    check: (code, c) => {
      const example = JSON.parse(code).eventNotifierSubscription;
      sameShape(example, c.values.subscription);
      const { id: _id, webhookSecret, ...fields } = example;
      for (const [k, v] of Object.entries(fields)) assert.deepEqual(v, c.values.subscription[k], k);
      assert.equal(webhookSecret.length, c.values.subscription.webhookSecret.length);
      assert.doesNotThrow(() => webhooks.sign({ id: 'x', body: '{}', secret: webhookSecret }));
    },
  },
  'events-receiver': {
    kind: 'run',
    env: (c) => ({ PORT: String(c.values.receiverPort) }),
    serve: async (c, port) => {
      // The worker delivers the token's Transfer events (retrying the ones sent before the receiver listened).
      await waitFor(
        async () =>
          (await records(c, c.env.MOUNTAIN_SUBSCRIPTION_ID as string)).every((r) => r.status === 'notified')
            ? true
            : undefined,
        30_000,
        'every record to be delivered',
      );
      const bad = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: signedHeaders(c.delivery as Delivery),
        body: c.delivery?.body as string,
      });
      assert.equal(bad.status, 400, 'a delivery signed with another subscription’s secret is refused');
    },
    check: (out) => {
      assert.match(
        out.stdout,
        /Transfer \{\n\s*from: '0x[0-9a-fA-F]{40}',\n\s*to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',\n\s*value: '1000'\n\}/,
      );
    },
  },
  'events-get-records': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-records', 200, body);
      const found = body.eventNotifierRecords as { status: string; decodedLog: { value: string } }[];
      // The mint, the wallet's two fundings, the setup transfer that succeeded and the two sample transfers.
      assert.equal(found.length, 6);
      assert.ok(found.every((r) => r.status === 'notified'));
      assert.ok(found.some((r) => r.decodedLog.value === '1000'));
    },
  },
  'webhook-payload': {
    kind: 'shape',
    check: (code, c) => {
      const real = JSON.parse(c.delivery?.body as string);
      const example = JSON.parse(code);
      sameShape(example, real);
      sameShape(real, example);
      assert.equal(example.data.recordId, example.data.recordId.toLowerCase());
      assert.equal(real.data.recordId, c.delivery?.headers['webhook-id']);
      assert.deepEqual(example.data.network, real.data.network);
      assert.deepEqual(example.data.event, real.data.event);
    },
  },
  'decoded-log': {
    kind: 'shape',
    check: (code, c) => {
      const real = JSON.parse(c.delivery?.body as string).data.decodedLog;
      assert.deepEqual(Object.keys(JSON.parse(code)).sort(), Object.keys(real).sort());
      sameShape(JSON.parse(code), real);
    },
  },
  verify: {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { readWebhook } from './verify.ts';
const { body, headers } = JSON.parse(process.env.DELIVERY ?? '');
const event = await readWebhook(body, headers);
console.log('returned', event?.data.recordId);
console.log('tampered returns', await readWebhook(body.replace('"value":"1000"', '"value":"9000"'), headers));
console.log('without signature returns', await readWebhook(new TextEncoder().encode(body), { ...headers, 'webhook-signature': undefined }));
`,
    check: (out, c) => {
      ok(out);
      const id = c.delivery?.headers['webhook-id'];
      assert.match(lines(out)[0] ?? '', /^event_notifier\.event Transfer \{/);
      assert.ok(out.stdout.includes(`returned ${id}`));
      assert.ok(out.stdout.includes('tampered returns undefined\nwithout signature returns undefined'));
      assert.deepEqual(out.stderr.trim().split('\n'), [
        'rejected webhook: NO_MATCHING_SIGNATURE',
        'rejected webhook: MISSING_HEADER',
      ]);
    },
  },
  'is-valid-webhook': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { isValidWebhook } from './is-valid-webhook.ts';
const { body, headers } = JSON.parse(process.env.DELIVERY ?? '');
const secret = process.env.MOUNTAIN_WEBHOOK_SECRET ?? '';
console.log(isValidWebhook(body, headers, secret));
console.log(isValidWebhook(body.replace('"value":"1000"', '"value":"9000"'), headers, secret));
console.log(isValidWebhook(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 600) }, secret));
console.log(isValidWebhook(body, { ...headers, 'webhook-signature': 'v1,AAAA ' + headers['webhook-signature'] }, secret));
`,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['true', 'false', 'false', 'true']);
    },
  },
  'on-event': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { onEvent } from './on-event.ts';
const event = JSON.parse(JSON.parse(process.env.DELIVERY ?? '').body);
const enqueue = async (job: string, payload: unknown) => console.log('enqueued', job, (payload as { recordId: string }).recordId);
await onEvent(event, enqueue);
await onEvent({ ...event, type: 'something.new' }, enqueue);
console.log('done');
`,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`enqueued transfer ${c.delivery?.headers['webhook-id']}`, 'done']);
    },
  },
  'on-transfer': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { onTransfer } from './on-transfer.ts';
onTransfer(JSON.parse(JSON.parse(process.env.DELIVERY ?? '').body));
`,
    check: (out, c) => {
      ok(out);
      const data = JSON.parse(c.delivery?.body as string).data;
      assert.deepEqual(lines(out), [`${data.decodedLog.from} -> ${RECIPIENT}: 1000 at block ${data.blockNumber}`]);
    },
  },
  'node-http': {
    kind: 'run',
    concurrent: true,
    env: (c) => ({ MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '' }),
    serve: async (c, port) => {
      await postDeliveries(c, `http://127.0.0.1:${port}/webhooks/mountain`);
      assert.equal((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status, 404);
    },
    check: printedTransfer,
  },
  express: {
    kind: 'run',
    concurrent: true,
    env: (c) => ({ MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '' }),
    serve: (c, port) => postDeliveries(c, `http://127.0.0.1:${port}/webhooks/mountain`),
    check: printedTransfer,
  },
  fastify: {
    kind: 'run',
    concurrent: true,
    env: (c) => ({ MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '' }),
    serve: (c, port) => postDeliveries(c, `http://127.0.0.1:${port}/webhooks/mountain`),
    check: printedTransfer,
  },
  'fetch-handler': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { POST } from './fetch-handler.ts';
const { body, headers } = JSON.parse(process.env.DELIVERY ?? '');
const post = (b: string) => POST(new Request('http://127.0.0.1/webhooks/mountain', { method: 'POST', headers, body: b }));
console.log('answered', (await post(body)).status);
console.log('tampered answered', (await post(body.replace('"value":"1000"', '"value":"9000"'))).status);
`,
    check: (out, c) => {
      ok(out);
      printedTransfer(out, c);
      assert.ok(out.stdout.includes('answered 204\ntampered answered 400'));
    },
  },
  'abi-from-json': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(JSON.parse(out.stdout), [
        'function transfer(address to, uint256 amount) returns (bool)',
        'error InsufficientBalance(uint256 available, uint256 required)',
      ]);
    },
  },
  'event-from-json-abi': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['event Transfer(address indexed from, address indexed to, uint256 value)']);
    },
  },
  'test-endpoint': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['handled test-1 event_notifier.event', '204']);
    },
  },
  'dedupe-sql': {
    kind: 'run',
    // The statements ran with the webhook-ids msg_1, msg_1, msg_2: only the repeated one inserts nothing.
    check: (out) => assert.deepEqual(JSON.parse(out.stdout), [1, 0, 1]),
  },
  'get-subscriptions': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-subscriptions', 200, body);
      const listed = body.eventNotifierSubscriptions.find((s: { id: string }) => s.id === c.values.subscription.id);
      assert.equal(listed.scanStatus === 'idle' || listed.scanStatus === 'scanning', true);
      assert.ok(listed.lastScannedBlock > 0);
      assert.match(listed.webhookSecret, /^whsec_.{4}\*{16}$/);
    },
  },
  'resend-failed': {
    kind: 'run',
    env: async (c) => ({ MOUNTAIN_SUBSCRIPTION_ID: await failingSubscription(c) }),
    check: async (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('resend-failed-webhook', 200, body);
      assert.equal(body.record.forced, false);
      assert.equal(body.record.requeuedCount, 6);
      c.values.failingSubscription = body.record.subscriptionId;
      // Each gets its one more attempt, which the receiver fails again.
      await waitFor(async () => {
        const all = await records(c, body.record.subscriptionId);
        return all.every((r) => r.status === 'failed' && r.notificationFailureCount === 2) ? true : undefined;
      });
    },
  },
  'management-get-records': {
    kind: 'run',
    env: (c) => ({ MOUNTAIN_SUBSCRIPTION_ID: c.values.failingSubscription }),
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('get-records', 200, body);
      for (const r of body.eventNotifierRecords) {
        assert.equal(r.status, 'failed');
        assert.equal(r.notificationFailureCount, 2);
        assert.equal(r.lastNotificationFailureMessage, 'HTTP 500 Internal Server Error');
      }
    },
  },
  'resend-forced': {
    kind: 'run',
    env: async (c) => {
      await c.h.call('update-subscription-webhook', {
        headers: apiKey(c.key),
        body: { id: c.values.failingSubscription, webhookEnabled: false },
      });
      (c.values.failingReceiver as Receiver).respondWith(() => ({ status: 200 }));
      return { MOUNTAIN_SUBSCRIPTION_ID: c.values.failingSubscription };
    },
    check: async (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('resend-failed-webhook', 200, body);
      assert.equal(body.record.forced, true);
      assert.equal(body.record.requeuedCount, 6);
      c.values.resent = body;
      // Sent although the webhook stays disabled.
      await waitFor(async () =>
        (await records(c, c.values.failingSubscription)).every((r) => r.status === 'notified') ? true : undefined,
      );
    },
  },
  'resend-summary': {
    kind: 'shape',
    check: (code, c) => {
      const example = JSON.parse(code);
      c.h.validator.assertResponse('resend-failed-webhook', 200, example);
      sameShape(example, c.values.resent);
      assert.equal(example.record.requeuedCount, example.record.recordIds.length);
    },
  },
  'update-webhook': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('update-subscription-webhook', 200, body);
      const s = body.eventNotifierSubscription;
      assert.equal(s.id, c.values.subscription.id);
      assert.equal(s.webhookURL, 'https://api.example.com/webhooks/mountain');
      assert.equal(s.webhookMaxRetries, 8);
      assert.equal(s.webhookEnabled, true);
      assert.equal(s.webhookSecret.slice(0, 10), c.values.subscription.webhookSecret.slice(0, 10));
    },
  },
  'deactivate-function': {
    kind: 'run',
    check: (out, c) => {
      const body = json(out);
      c.h.validator.assertResponse('deactivate-contract-function', 201, body);
      c.values.deactivated = body;
    },
  },
  'function-deactivated': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.deactivated),
  },
  'abi-event': {
    kind: 'shape',
    check: (code, c) => {
      assert.equal(parseAbiItem(code.trim()).type, 'event');
      assert.equal(code.trim(), c.values.subscription.formattedAbiEvent);
    },
  },
};

describe('docs samples', () => {
  const c = { env: {}, values: {} } as Context;
  let dir: string;
  let capture: Receiver;
  const samples = allSamples();
  const byId = new Map(samples.filter((s) => s.kind === 'run' || s.kind === 'shape').map((s) => [s.tag, s]));

  before(async () => {
    dir = workDir();
    typecheck = typecheckSamples(dir);
    typecheck.catch(() => {}); // awaited by its test; this only keeps an early failure from going unhandled
    c.anvil = await startAnvil({ port: await freePort() });
    c.token = await deployDocsToken(c.anvil.url);
    c.h = await createHarness({ rpcUrls: { 1337: c.anvil.url }, worker: true });
    await c.h.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = c.h.app.server.address() as AddressInfo;
    const { project, apiKey: key } = await c.h.project('Demo project');
    c.projectId = project.id;
    c.key = key;
    const admin = await c.h.member(project.id, 'admin');
    const detail = await c.h.call('get-project-detail', { headers: apiKey(key) });
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    c.wallet = detail.body.data.mSystemWalletTestnet.address;
    capture = await startReceiver();
    c.env = {
      MOUNTAIN_API_URL: `http://127.0.0.1:${port}/public-api/v3`,
      MOUNTAIN_API_KEY: key,
      MOUNTAIN_ACCESS_TOKEN: admin.token,
    };
  });
  after(async () => {
    await capture?.close();
    await (c.values.failingReceiver as Receiver | undefined)?.close();
    await c.h?.close(); // also stops the API listening on loopback
    await c.anvil?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let typecheck: Promise<Output>;
  it('every TypeScript sample compiles under the repository’s strict TypeScript settings', async () => {
    const out = await typecheck;
    assert.equal(out.code, 0, `tsc found errors in the samples:\n${out.stdout}${out.stderr}`);
  });

  it('every code block of the getting-started, SDK and services pages is tagged, and every tag has a check', () => {
    const untagged = samples.filter((s) => s.kind === 'untagged').map((s) => `${s.page}:${s.line} (${s.lang})`);
    assert.deepEqual(untagged, [], 'tag each block run=<id>, shape=<id> or no-run="<reason>"');
    const tagged = samples.filter((s) => s.kind === 'run' || s.kind === 'shape');
    assert.deepEqual(
      tagged.map((s) => `${s.kind}=${s.tag}`).sort(),
      Object.entries(steps)
        .map(([id, step]) => `${step.kind}=${id}`)
        .sort(),
      'each run/shape block has one step in samples.test.ts, and each step one block',
    );
    assert.equal(new Set(tagged.map((s) => s.tag)).size, tagged.length, 'ids are unique');
    const counts = { run: 0, shape: 0, 'no-run': 0 } as Record<string, number>;
    for (const s of samples) counts[s.kind] = (counts[s.kind] ?? 0) + 1;
    console.log(`samples: ${counts.run} executed, ${counts.shape} shape-checked, ${counts['no-run']} not run`);
  });

  /** Runs a `run` step's sample and returns its output (a server's, once `serve` is done with it). */
  async function execute(id: string): Promise<Output> {
    const step = steps[id] as Extract<Step, { kind: 'run' }>;
    const sample = byId.get(id) as Sample;
    await step.prepare?.(c);
    const env = { ...c.env, ...(await step.env?.(c)) };
    const file = writeSample(dir, sample, step.driver);
    if (!step.serve) return runFile(file, env, sample.lang === 'bash' ? { cwd: REPO_ROOT } : {});
    const port = Number(env.PORT ?? (await freePort()));
    const running = await startFile(file, { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/`);
    try {
      await step.serve(c, port);
    } finally {
      await running.stop();
    }
    return running.output();
  }

  /** Starts a concurrent step together with the concurrent steps that follow it, three processes at a time. */
  const started = new Map<string, Promise<Output>>();
  function launch(id: string): Promise<Output> {
    if (!started.has(id)) {
      const ids = Object.keys(steps);
      const group: string[] = [];
      for (let i = ids.indexOf(id); i < ids.length; i++) {
        const next = steps[ids[i] as string] as Step;
        if (next.kind !== 'run' || !next.concurrent) break;
        group.push(ids[i] as string);
      }
      let running = Promise.resolve() as Promise<unknown>;
      const lanes = [running, running, running];
      group.forEach((member, index) => {
        const lane = index % lanes.length;
        running = (lanes[lane] as Promise<unknown>).then(() => execute(member));
        lanes[lane] = running.catch(() => {});
        started.set(member, running as Promise<Output>);
      });
    }
    return started.get(id) as Promise<Output>;
  }

  for (const [id, step] of Object.entries(steps)) {
    it(`${step.kind === 'run' ? 'runs' : 'checks'} ${id}`, async () => {
      const sample = byId.get(id) as Sample;
      assert.ok(sample, `no block tagged ${step.kind}=${id}`);
      if (id === 'create-subscription') await captureDelivery();
      if (step.kind === 'shape') return step.check(sample.code, c);
      const out = await (sample.lang === 'sql' ? runSql(sample) : step.concurrent ? launch(id) : execute(id));
      await step.check(out, c);
    });
  }

  /** A subscription of the test's own, to keep one real delivery (raw body and headers) for the receiver samples. */
  async function captureDelivery() {
    const res = await c.h.call('create-subscription', {
      headers: apiKey(c.key),
      body: {
        subscriptionName: 'capture',
        networkId: 1337,
        address: DOCS_TOKEN_ADDRESS,
        formattedAbiEvent: 'event Transfer(address indexed from, address indexed to, uint256 value)',
        initialBlockNumber: 0,
        scanInterval: 5,
        webhookURL: capture.url,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const pick = () =>
      capture.deliveries.find((d) => {
        const data = JSON.parse(d.body).data;
        return data.decodedLog.value === '1000' && data.decodedLog.to === RECIPIENT;
      });
    await capture.waitFor(() => pick() !== undefined, 20_000, 'a delivery of the 1000-token transfer');
    c.delivery = { ...(pick() as Delivery), secret: res.body.eventNotifierSubscription.webhookSecret };
  }

  /**
   * Runs the SQL sample in the test database inside a transaction that is rolled back: the table, then the
   * insert for three deliveries; prints the number of rows each insert returned.
   */
  async function runSql(sample: Sample): Promise<Output> {
    const [create, insert] = sample.code
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('--'))
      .map((l) => l.replace(/;$/, ''));
    const connection = new pg.Client({
      connectionString: databaseUrl(c),
    });
    await connection.connect();
    try {
      await connection.query('BEGIN');
      await connection.query(create as string);
      const counts = [];
      for (const id of ['msg_1', 'msg_1', 'msg_2'])
        counts.push((await connection.query(insert as string, [id])).rowCount);
      return { code: 0, stdout: JSON.stringify(counts), stderr: '' };
    } finally {
      await connection.query('ROLLBACK');
      await connection.end();
    }
  }
});

describe('SDK pages describe exactly the public API', () => {
  const sdkPages = pages()
    .filter((p) => p.startsWith('sdks-tools'))
    .map((p) => readFileSync(path.join(DOCS_ROOT, p), 'utf8'))
    .join('\n');
  const packages = [
    ['@mountain/public-api-client', 'packages/client'],
    ['@mountain/webhook-sdk', 'packages/webhooks'],
  ] as const;

  /** Every runtime export (function, class, constant) of each package entry point listed in package.json. */
  async function exportsOf(): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const [name, dir] of packages) {
      const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, dir, 'package.json'), 'utf8'));
      for (const subpath of Object.keys(manifest.exports)) {
        const specifier = `${name}${subpath.slice(1)}`;
        for (const exported of Object.keys(await import(specifier))) found.set(exported, specifier);
      }
    }
    return found;
  }

  it('mentions every exported function, class and constant of both SDKs', async () => {
    const exported = await exportsOf();
    assert.ok(exported.size >= 29, `${exported.size} exports`);
    const missing = [...exported].filter(([name]) => !new RegExp(`\\b${name}\\b`).test(sdkPages));
    assert.deepEqual(missing, [], 'describe each export on the SDK pages (apps/docs/docs/sdks-tools)');
    console.log(`SDK exports covered: ${exported.size}`);
  });

  it('mentions no SDK function, class or client method that does not exist', async () => {
    const exported = await exportsOf();
    const methods = new Set(
      Object.getOwnPropertyNames(client.MountainClient.prototype).filter((m) => m !== 'constructor'),
    );
    // What the pages call that belongs to Node, the frameworks or other libraries.
    const elsewhere = new Set(['fetch', 'express', 'json', 'use', 'register', 'serve', 'listen', 'createServer']);
    const unknown: string[] = [];
    const code = [...sdkPages.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
    for (const span of code) {
      for (const [, name] of span.matchAll(/(?:^|[\s.(])([a-z]\w*)\(/g)) {
        if (!exported.has(name as string) && !methods.has(name as string) && !elsewhere.has(name as string)) {
          unknown.push(`${name}() in \`${span}\``);
        }
      }
      for (const [, name] of span.matchAll(/^([A-Z]\w*Error)$/g)) {
        if (!exported.has(name as string)) unknown.push(name as string);
      }
    }
    for (const block of sdkPages.matchAll(/import \{([^}]+)\} from '(@mountain\/[\w-]+)'/g)) {
      for (const item of (block[1] as string).split(',')) {
        const name = item.trim().replace(/^type /, '');
        const module = name && (await import(block[2] as string));
        if (name && !(name in module) && !typeExports(block[2] as string).includes(name)) unknown.push(name);
      }
    }
    assert.deepEqual(unknown, []);
  });

  it('lists every client method with the operation it calls, as the OpenAPI document has it', () => {
    const overview = readFileSync(path.join(DOCS_ROOT, 'sdks-tools/public-api-client/overview.md'), 'utf8');
    const rows = [...overview.matchAll(/^\| `(\w+)\([^)]*\)` +\| `(GET|POST) ([^`]+)`/gm)];
    const document = JSON.parse(readFileSync(path.join(DOCS_ROOT, '../static/openapi/public-api-v3.json'), 'utf8'));
    const operations = new Map<string, string>();
    for (const [route, methods] of Object.entries(
      document.paths as Record<string, Record<string, { operationId: string }>>,
    )) {
      for (const [method, op] of Object.entries(methods))
        operations.set(op.operationId, `${method.toUpperCase()} ${route}`);
    }
    const kebab = (name: string) => name.replace(/[A-Z]/g, (l) => `-${l.toLowerCase()}`);
    for (const [, method, verb, route] of rows) {
      assert.equal(`${verb} ${route}`, operations.get(kebab(method as string)), `${method}()`);
    }
    const helpers = new Set(['constructor', 'baseUrl', 'iterateTransactions', 'waitForTransaction']);
    const methods = Object.getOwnPropertyNames(client.MountainClient.prototype).filter((m) => !helpers.has(m));
    assert.deepEqual(rows.map((r) => r[1]).sort(), methods.sort());
    assert.equal(methods.length, operations.size);
  });

  it('names only client options the constructor accepts', () => {
    const page = readFileSync(path.join(DOCS_ROOT, 'sdks-tools/public-api-client/getting-started.md'), 'utf8');
    const table = page.slice(
      page.indexOf('| Client option |'),
      page.indexOf('\n\n', page.indexOf('| Client option |')),
    );
    const names = [...table.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) =>
      [...(row[1] as string).matchAll(/`(\w+)`/g)].map((m) => m[1] as string),
    );
    assert.ok(names.length >= 7, names.join(', '));
    for (const name of names) {
      assert.doesNotThrow(() => new client.MountainClient({ apiKey: 'mtn_test_x', [name]: undefined }), name);
    }
    assert.throws(
      () => new client.MountainClient({ apiKey: 'mtn_test_x', maxRetry: 1 } as never),
      /Unknown MountainClient option: maxRetry/,
    );
  });
});

/** Type-only exports of a package's index.ts (they have no runtime value to import). */
function typeExports(specifier: string): string[] {
  const dir = specifier === '@mountain/webhook-sdk' ? 'packages/webhooks' : 'packages/client';
  const index = readFileSync(path.join(REPO_ROOT, dir, 'src/index.ts'), 'utf8');
  return [...index.matchAll(/type (\w+)/g)].map((m) => m[1] as string);
}

/** Starts `tsc` on every TypeScript sample, each written as its own module with the repository's settings. */
function typecheckSamples(dir: string): Promise<Output> {
  const folder = path.join(dir, 'typecheck');
  mkdirSync(folder, { recursive: true });
  for (const s of allSamples())
    if (s.kind === 'run' && s.lang === 'ts') writeFileSync(path.join(folder, `${s.tag}.ts`), s.code);
  writeFileSync(path.join(folder, 'package.json'), '{ "type": "module", "private": true }\n');
  const base = path.relative(folder, path.join(REPO_ROOT, 'tsconfig.base.json'));
  writeFileSync(
    path.join(folder, 'tsconfig.json'),
    JSON.stringify({
      extends: base,
      compilerOptions: { noEmit: true, rewriteRelativeImportExtensions: false },
      include: ['*.ts'],
    }),
  );
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  return runFile(tsc, {}, { cwd: folder, timeoutMs: 90_000, args: ['-p', '.'] });
}

/** A regular expression for one line of a template literal: `${…}` (nested ones included) matches any text. */
function templateLine(line: string): RegExp {
  let pattern = '';
  for (let i = 0; i < line.length; i++) {
    if (line.startsWith('${', i)) {
      let depth = 0;
      for (; i < line.length; i++) {
        if (line[i] === '{') depth++;
        else if (line[i] === '}' && --depth === 0) break;
      }
      pattern += '.+';
    } else pattern += (line[i] as string).replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}
