// How the console reads, view by view, on a laptop (1366 × 900) and on a phone (390 × 844), with a project full of
// what a real one holds: a contract with view, nonpayable and payable functions, transactions with long arguments,
// a subscription with records (one delivered after failed attempts), a webhook endpoint with every event type and its
// attempts. Each view must fit its width (no sideways scrolling of the page), no table may break a word in the
// middle (an address, an event type, a hash), and axe finds nothing in it. The screenshots are kept in
// apps/console/.screenshots/<size>/.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiKey as keyHeader } from '@mountain/api/testing';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { COUNTER_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { Page } from 'playwright-core';
import { consoleView, newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const SCREENSHOTS = path.join(REPO_ROOT, 'apps/console/.screenshots');
const SIZES = [
  { name: 'laptop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
const WHO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const RECORD = COUNTER_FORMATTED_ABI.find((s) => s.startsWith('function record(')) as string;

/** What a view breaks: the page wider than the window, and words split across lines in table cells. */
interface Breakage {
  pageWidth: number;
  windowWidth: number;
  brokenWords: string[];
}

/** Measured in the page: each word of each table cell must sit on one line (one client rect per word). */
function measure(page: Page): Promise<Breakage> {
  return page.evaluate(() => {
    const brokenWords: string[] = [];
    for (const cell of document.querySelectorAll('main td, main th')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const match of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index ?? 0);
          range.setEnd(node, (match.index ?? 0) + match[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) brokenWords.push(match[0]);
        }
      }
    }
    return {
      pageWidth: document.documentElement.scrollWidth,
      windowWidth: window.innerWidth,
      brokenWords: [...new Set(brokenWords)],
    };
  });
}

describe('the console at a laptop’s and a phone’s width', { timeout: 240_000 }, () => {
  let p: Platform;
  let key: string;
  let page: Page;
  let receiver: Receiver;
  let flaky: Receiver;
  const ids: Record<string, string> = {};

  before(async () => {
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    p = await startPlatform();
    ({ apiKey: key } = await p.h.project('Layout project'));
    const headers = keyHeader(key);
    const call = async (operation: string, body: unknown, status = 201) => {
      const res = await p.h.call(operation, { headers, body });
      assert.equal(res.status, status, `${operation}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    receiver = await startReceiver();
    await call('create-webhook-endpoint', {
      url: `${receiver.url}/a-rather-long/path/to/the/order-service/webhooks`,
      description: 'Order service',
      eventTypes: [
        'transaction.succeeded',
        'transaction.reverted',
        'transaction.failed',
        'transaction.cancelled',
        'transaction.reorged',
      ],
    });
    const { contract } = await call('import-contract', {
      networkId: 1337,
      address: p.counter,
      formattedAbi: COUNTER_FORMATTED_ABI,
    });
    ids.contract = String(contract.id);
    const activate = async (formattedAbiFunction: string, limits = {}) =>
      (await call('activate-contract-function', { contractId: contract.id, formattedAbiFunction, ...limits }))
        .contractActivatedFunction.id as number;
    const increment = await activate('function increment(uint256 amount)');
    ids.increment = String(increment);
    const record = await activate(RECORD);
    await activate('function deposit() payable', { maxValuePerTransaction: '1000000000000000', maxValuePerDay: '0' });
    const executed: string[] = [];
    for (const [i, [fn, args]] of [
      [increment, ['7']],
      [
        record,
        [
          WHO,
          'true',
          `0x${'ab'.repeat(32)}`,
          `0x${'cd'.repeat(40)}`,
          'a note that runs on',
          '["1","2","3"]',
          '-5',
          '{"x":"1","y":"-2"}',
        ],
      ],
      [increment, ['999']],
    ].entries()) {
      const body = await call('execute-transaction', {
        contractActivatedFunctionId: fn,
        functionArgs: args,
        idempotencyKey: `layout-${i}`,
      });
      executed.push(body.transaction.id);
    }
    ids.transaction = executed[1] as string;
    await waitFor(async () => {
      const res = await p.h.call('get-transactions', { headers, query: { perPage: '100' } });
      const rows = res.body.data.transactions as { status: string }[];
      return rows.length === 3 && rows.every((t) => t.status === 'succeeded') ? true : undefined;
    }, 60_000);
    // A receiver that refuses its first two attempts: the records are delivered after failures.
    let refused = 0;
    flaky = await startReceiver(() => (refused++ < 2 ? { status: 503 } : { status: 200 }));
    const { eventNotifierSubscription: s } = await call('create-subscription', {
      subscriptionName: 'Counter increments seen by the order service',
      networkId: 1337,
      address: p.counter,
      formattedAbiEvent: 'event Incremented(address indexed by, uint256 amount, uint256 total)',
      initialBlockNumber: 0,
      scanInterval: 5,
      webhookURL: flaky.url,
      webhookMaxRetries: 3,
    });
    ids.subscription = s.id;
    await waitFor(
      async () => {
        const res = await p.h.call('get-records', { headers, body: { subscriptionId: s.id } });
        const found = res.body.eventNotifierRecords as { status: string }[];
        return found.length === 2 && found.every((r) => r.status === 'notified') ? true : undefined;
      },
      90_000,
      'the records delivered after the refusals',
    );
    ({ page } = await newTab(p.browser));
    await signInWithKey(key);
  });
  after(async () => {
    await receiver?.close();
    await flaky?.close();
    await p?.close();
  });

  const { url, heading, axeClean, signInWithKey } = consoleView(
    () => p.origin,
    () => page,
  );
  const views = () => [
    { name: 'overview', path: '/', heading: 'Overview' },
    { name: 'project', path: '/project', heading: 'Project', ready: 'Testnet' },
    { name: 'contracts', path: '/contracts', heading: 'Contracts', ready: 'increment' },
    { name: 'transactions', path: '/transactions', heading: 'Transactions', ready: 'record' },
    { name: 'transaction', path: `/transactions/${ids.transaction}`, heading: 'Transaction', ready: 'record' },
    { name: 'events', path: '/events', heading: 'Event notifier', ready: 'Counter increments' },
    {
      name: 'records',
      path: `/events/${ids.subscription}`,
      heading: 'Records of Counter increments seen by the order service',
      ready: 'amount',
    },
    { name: 'webhooks', path: '/webhooks', heading: 'Webhooks', ready: 'Order service' },
    { name: 'attempts', path: '/webhooks/attempts', heading: 'Attempt log', ready: 'HTTP 200' },
    {
      name: 'execute',
      path: `/execute/${ids.increment}?contractId=${ids.contract}`,
      heading: 'Execute a function',
      ready: 'increment',
    },
  ];

  for (const size of SIZES) {
    it(`fits ${size.width} × ${size.height} (${size.name}) in every view, with no word broken in a table`, async () => {
      await page.setViewportSize({ width: size.width, height: size.height });
      mkdirSync(path.join(SCREENSHOTS, size.name), { recursive: true });
      const problems: string[] = [];
      for (const view of views()) {
        await page.goto(url(view.path));
        await page.waitForLoadState('load');
        await heading(view.heading);
        if (view.ready) await page.getByText(view.ready).first().waitFor({ timeout: 20_000 });
        await page.waitForTimeout(150); // the fonts and the last paint
        await axeClean(`${view.name} at ${size.width} × ${size.height}`);
        const seen = await measure(page);
        await page.screenshot({ path: path.join(SCREENSHOTS, size.name, `${view.name}.png`), fullPage: true });
        if (seen.pageWidth > seen.windowWidth) {
          problems.push(`${view.name}: the page is ${seen.pageWidth} px wide in a ${seen.windowWidth} px window`);
        }
        if (seen.brokenWords.length) problems.push(`${view.name}: broken mid-word: ${seen.brokenWords.join(' | ')}`);
      }
      assert.deepEqual(problems, []);
    });
  }
});
