// What the checks of the docs samples share: the context the steps pass along, the step type, and helpers.
import assert from 'node:assert/strict';
import { apiKey, type Harness } from '@mountain/api/testing';
import type { AnvilHandle } from '@mountain/testkit/anvil.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Delivery, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { DOCS_TOKEN_ADDRESS, type deployDocsToken } from '../helpers/docsToken.ts';
import { jsonDocuments, type Output } from '../helpers/samples.ts';

export const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const TRANSFER_ABI = 'function transfer(address to, uint256 amount) returns (bool)';

/** A JSON answer: its shape is checked against the OpenAPI document at run time, not by the compiler. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = any;

/** What the steps share: the server, the chain, the reader's environment and what earlier steps returned. */
export interface Context {
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
export type Step =
  | {
      kind: 'run';
      /** Extra environment for this sample. */
      env?: (c: Context) => Record<string, string> | Promise<Record<string, string>>;
      /** A script that imports the sample (`./<id>.ts`) and calls what it exports. */
      driver?: string;
      /** The sample serves until stopped: `serve` talks to it on `PORT`, then it gets SIGTERM. */
      serve?: (c: Context, port: number) => Promise<void>;
      /** A later step run while this one serves, before `serve` (a command that needs the server listening). */
      during?: string;
      /** Independent of its neighbours: started together with the concurrent steps right after it. */
      concurrent?: boolean;
      /** Work done before the sample, such as the setup a reader would already have. */
      prepare?: (c: Context) => Promise<void>;
      check: (out: Output, c: Context) => void | Promise<void>;
    }
  | { kind: 'shape'; check: (code: string, c: Context) => void | Promise<void> };

/** The URL of the test database (the admin CLI and the SQL sample use it as a reader would use theirs). */
export const databaseUrl = (c: Context) =>
  (c.h.db.pool as unknown as { options: { connectionString: string } }).options.connectionString;

export const json = (out: Output): Json => {
  const [document] = jsonDocuments(out.stdout);
  assert.ok(document, `no JSON in the output:\n${out.stdout}\n${out.stderr}`);
  return document;
};
export const lines = (out: Output) => out.stdout.trim().split('\n');
export const ok = (out: Output) => assert.equal(out.code, 0, `exit ${out.code}\n${out.stdout}\n${out.stderr}`);

/** A sample's printed JSON answer, validated against the OpenAPI document as `operation`'s `status` answer. */
export function answer(out: Output, c: Context, operation: string, status: number): Json {
  const body = json(out);
  c.h.validator.assertResponse(operation, status, body);
  return body;
}

/** An answer shown on a page: valid as `operation`'s `status` answer, and shaped like the server's real one. */
export function example(code: string, c: Context, operation: string, status: number, real: unknown): Json {
  const shown = JSON.parse(code);
  c.h.validator.assertResponse(operation, status, shown);
  sameShape(shown, real);
  return shown;
}

/** Every key of `example` is in `real`, with a value of the same JSON type, recursively (arrays: first item). */
export function sameShape(example: unknown, real: unknown, at = '$'): void {
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
export const signedHeaders = (d: Delivery) => ({
  'content-type': 'application/json',
  'webhook-id': d.headers['webhook-id'] as string,
  'webhook-timestamp': d.headers['webhook-timestamp'] as string,
  'webhook-signature': d.headers['webhook-signature'] as string,
});
export const tamper = (body: string) => body.replace('"value":"1000"', '"value":"9000"');

/** Posts the real delivery, then a tampered copy, to a running receiver; it must take one and refuse the other. */
export async function postDeliveries(c: Context, url: string) {
  const d = c.delivery as Delivery;
  const good = await fetch(url, { method: 'POST', headers: signedHeaders(d), body: d.body });
  assert.equal(good.status, 204, await good.text());
  const bad = await fetch(url, { method: 'POST', headers: signedHeaders(d), body: tamper(d.body) });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).code, 'NO_MATCHING_SIGNATURE');
}

export const deliveryEnv = (c: Context) => ({
  MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '',
  DELIVERY: JSON.stringify({ body: c.delivery?.body, headers: signedHeaders(c.delivery as Delivery) }),
});

/** The lines a receiver prints for the real delivery: the record id and the decoded Transfer. */
export function printedTransfer(out: Output, c: Context) {
  const id = c.delivery?.headers['webhook-id'] as string;
  assert.match(out.stdout, new RegExp(`${id} Transfer \\{`));
  assert.match(out.stdout, new RegExp(`to: '${RECIPIENT}'`));
  assert.match(out.stdout, /value: '1000'/);
  assert.equal(out.stdout.split(id).length, 2, 'only the genuine delivery reached the handler');
}

export async function records(c: Context, subscriptionId: string) {
  const res = await c.h.call('get-records', { headers: apiKey(c.key), body: { subscriptionId } });
  assert.equal(res.status, 200);
  return res.body.eventNotifierRecords as { status: string; notificationFailureCount: number; decodedLog: Json }[];
}

/** A subscription whose receiver always answers 500, with its records failed after one attempt each. */
export async function failingSubscription(c: Context) {
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

/** A regular expression for one line of a template literal: `${…}` (nested ones included) matches any text. */
export function templateLine(line: string): RegExp {
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
