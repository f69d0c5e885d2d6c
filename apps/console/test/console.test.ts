// The developer console in Chromium against the real API, worker and anvil, used as a person would: sign in with the
// project API key, import the Counter, activate a function, execute it through the form generated from its ABI (a
// tuple, an array, bytes…), watch it succeed, be taken back by a reorg and mined again; subscribe to its events and
// see them, stop and resume the scan; add a webhook endpoint (a real receiver), read its attempt log, rotate its
// secret, replay a window; sign out; sign in as a reader with a one-time link, which then refuses a second use.
// axe-core checks every view. Needs the console built (`npm test` builds it). With CONSOLE_SCREENSHOTS=1 it also
// writes the docs' screenshots (`npm run screenshots -w @mountain/console`).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bearer } from '@mountain/api/testing';
import { rpcCall } from '@mountain/testkit/jsonRpc.ts';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { COUNTER_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import { startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { Page } from 'playwright-core';
import { consoleView, newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const RECORD = COUNTER_FORMATTED_ABI.find((s) => s.startsWith('function record(')) as string;
const INCREMENT = 'function increment(uint256 amount)';
const WHO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SCREENSHOTS =
  process.env.CONSOLE_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'apps/docs/static/img/console') : null;

describe('the developer console', { timeout: 120_000 }, () => {
  let p: Platform;
  let apiKey: string;
  let projectId: number;
  let reader: { userId: number };
  let page: Page;
  let errors: string[];

  before(async () => {
    p = await startPlatform();
    const created = await p.h.project('Console project');
    apiKey = created.apiKey;
    projectId = created.project.id;
    reader = await p.h.member(projectId, 'reader');
    ({ page, errors } = await newTab(p.browser));
  });
  after(async () => {
    await p?.close();
  });

  const { url, heading, axeClean } = consoleView(
    () => p.origin,
    () => page,
  );
  /** The docs' picture of the view as it is now, when screenshots are asked for. */
  const screenshot = async (name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  const nav = async (name: string) => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
    await heading(name === 'Event notifier' ? 'Event notifier' : name);
  };

  it('signs in with the project API key (a malformed one gets a field error), into the Overview', async () => {
    await page.goto(url('/'));
    await heading('Sign in to the Mountain console');
    await axeClean('sign-in');
    await page.getByLabel('Project API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('starts with mtn_test_ or mtn_live_').waitFor();
    await page.getByLabel('Project API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await page.getByRole('img', { name: /0 transactions in the last 24 hours/ }).waitFor();
    await page.getByRole('img', { name: /0 webhook attempts in the last 24 hours/ }).waitFor();
    await axeClean('overview');
    assert.equal(await page.evaluate(() => localStorage.length), 0, 'nothing in local storage');
    assert.doesNotMatch(page.url(), /mtn_/);
  });

  it('shows the project: its wallets with their custody, its members, and key rotation for the admin', async () => {
    await nav('Project');
    await page.getByText('Console project').first().waitFor();
    await page.getByRole('heading', { name: 'Testnet wallet' }).waitFor();
    await page.getByRole('cell', { name: /reader-/ }).waitFor();
    await page.getByRole('button', { name: 'Rotate the API key…' }).waitFor();
    // The testnet wallet's balance, read from the chain (the mainnet wallet has no network configured here).
    await page.getByText(/^[\d.]+ ETH on Local chain 1337$/).waitFor();
    await page.getByText('no network of this type is configured here').waitFor();
    await axeClean('project');
    await screenshot('project');
  });

  it('imports the Counter (a broken ABI is refused before sending) and activates two functions', async () => {
    await nav('Contracts');
    await page.getByText('No contract yet').waitFor();
    await page.getByRole('button', { name: 'Import a contract' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a contract' });
    await dialog.getByLabel('Contract address').fill(p.counter);
    await dialog.getByLabel('ABI').fill('function broken(uint256');
    await dialog.getByRole('button', { name: 'Import' }).click();
    await dialog.getByText(/is not a valid signature/).waitFor();
    await axeClean('import dialog');
    await dialog.getByLabel('ABI').fill(JSON.stringify(COUNTER_FORMATTED_ABI));
    await dialog.getByRole('button', { name: 'Import' }).click();
    await dialog.waitFor({ state: 'detached' });
    for (const signature of [RECORD, INCREMENT]) {
      await page.getByRole('button', { name: `Activate ${signature}` }).click();
      await page.getByRole('link', { name: `Execute ${signature}` }).waitFor();
    }
    await axeClean('contracts');
    await screenshot('contracts');
  });

  it('executes record() through the generated form, tuple and array included, and watches it succeed', async () => {
    await page.getByRole('link', { name: `Execute ${RECORD}` }).click();
    await heading('Execute a function');
    const key = await page.getByLabel('Idempotency key').inputValue();
    assert.match(key, /^[0-9a-f-]{36}$/, 'an idempotency key is filled in and shown');
    await page.getByLabel('who (address)').fill(WHO);
    await page.getByLabel('flag (bool)').selectOption('true');
    await page.getByLabel('tag (bytes32)').fill('0x12');
    await page.getByLabel('blob (bytes)').fill('0xdeadbeef');
    await page.getByLabel('note (string)').fill('from the console');
    await page.getByRole('button', { name: 'Add an element to values' }).click();
    await page.getByRole('button', { name: 'Add an element to values' }).click();
    await page.getByLabel('values[0] (uint256)').fill('1');
    await page.getByLabel('values[1] (uint256)').fill('0x10');
    await page.getByLabel('delta (int64)').fill('-5');
    await page.getByLabel('point.x (int64)').fill('3');
    await page.getByLabel('point.y (int64)').fill('-4');
    await screenshot('execute');
    await page.getByRole('button', { name: 'Execute', exact: true }).click();
    // Encoded before sending: the wrong bytes32 is named beside its field, and nothing was sent.
    await page.getByText('must be exactly 32 bytes, got 1').waitFor();
    await axeClean('execute form with an error');
    assert.equal((await p.h.db.query('SELECT 1 FROM transactions')).rowCount, 0);
    await page.getByLabel('tag (bytes32)').fill(`0x${'ab'.repeat(32)}`);
    await page.getByRole('button', { name: 'Execute', exact: true }).click();
    await heading('Transaction');
    await page.locator('#tx-facts .badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await page.getByText('Mined').waitFor();
    await page.getByText(key).waitFor();
    const { rows } = await p.h.db.query<{ function_args: string[] }>('SELECT function_args FROM transactions');
    assert.deepEqual(rows[0]?.function_args, [
      WHO,
      'true',
      `0x${'ab'.repeat(32)}`,
      '0xdeadbeef',
      'from the console',
      '["1","0x10"]',
      '-5',
      '["3","-4"]',
    ]);
    await axeClean('transaction');
  });

  it('shows the reorg that took its block back, and the block that holds it again', async () => {
    const { rows } = await p.h.db.query<{ block: string }>('SELECT block_number::text AS block FROM transactions');
    const mined = Number(rows[0]?.block);
    const head = Number(await rpcCall(p.anvil.url, 'eth_blockNumber'));
    // The chain replaces every block from the one that holds it; anvil does not pool its transactions again.
    await rpcCall(p.anvil.url, 'anvil_reorg', [head - mined + 1, []]);
    await page.getByText(`Mined in block ${mined}, taken back by a reorg`).waitFor({ timeout: 60_000 });
    await page.getByText('Mined again').waitFor({ timeout: 60_000 });
    await page.locator('#tx-facts .badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await axeClean('transaction after a reorg');
    await screenshot('transaction');
  });

  it('refreshes an unfinished transaction while the tab is visible, and not while it is hidden', async () => {
    // Not final yet (anvil's finalized block trails by 64): the page asks again every 2 s while visible.
    const asked = () => {
      let count = 0;
      const onRequest = (request: { url(): string }) => {
        if (request.url().includes('/transaction/get-transaction')) count++;
      };
      page.on('request', onRequest);
      return () => {
        page.off('request', onRequest);
        return count;
      };
    };
    const setHidden = (hidden: boolean) =>
      page.evaluate((h) => {
        Object.defineProperty(document, 'visibilityState', { value: h ? 'hidden' : 'visible', configurable: true });
        Object.defineProperty(document, 'hidden', { value: h, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);
    const askedAgain = () =>
      page.waitForRequest((request) => request.url().includes('/transaction/get-transaction'), { timeout: 10_000 });
    await askedAgain();
    await setHidden(true);
    // Any 3.5 s holds at least one tick of a 2 s refresh: none may ask while the tab is hidden.
    const stop = asked();
    await page.waitForTimeout(3_500);
    assert.equal(stop(), 0, 'not asked while hidden');
    const again = askedAgain();
    await setHidden(false);
    await again;
  });

  it('lists it among the transactions, filtered by status', async () => {
    await nav('Transactions');
    await page.getByRole('cell', { name: 'succeeded' }).waitFor();
    await page.getByLabel('Status').selectOption('reverted');
    await page.getByText('No reverted transaction.').waitFor();
    assert.match(page.url(), /status=reverted/);
    await axeClean('transactions');
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('cell', { name: 'succeeded' }).waitFor();
    await screenshot('transactions');
  });

  it('creates a subscription to the Counter’s events and shows what it finds', async () => {
    await nav('Event notifier');
    await page.getByText('No subscription yet').waitFor();
    await axeClean('event notifier');
    await page.getByRole('button', { name: 'Create a subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a subscription' });
    await dialog.getByLabel('Name').fill('Increments');
    await dialog.getByLabel('Contract address', { exact: true }).fill(p.counter);
    await dialog
      .getByLabel('Event', { exact: true })
      .fill('event Incremented(address indexed by, uint256 amount, uint256 total)');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText(/whsec_/).waitFor();
    await axeClean('subscription created');
    await dialog.getByRole('button', { name: 'Done' }).click();
    const fn = await p.h.db.query<{ id: number }>(
      "SELECT id FROM contract_activated_functions WHERE signature LIKE 'increment%'",
    );
    const executed = await p.h.call('execute-transaction', {
      headers: { 'x-api-key': apiKey },
      body: { contractActivatedFunctionId: fn.rows[0]?.id, functionArgs: ['7'], idempotencyKey: 'console-increment' },
    });
    assert.equal(executed.status, 201, JSON.stringify(executed.body));
    await page.getByRole('link', { name: 'Increments' }).click();
    await heading('Records of Increments');
    await page.getByText('"amount": "7"').waitFor({ timeout: 60_000 });
    await axeClean('records');
    await screenshot('records');
  });

  it('stops and resumes the subscription’s scan, and edits its webhook with the error beside the field', async () => {
    await nav('Event notifier');
    await page.getByRole('button', { name: 'Stop scanning for Increments' }).click();
    await page.getByRole('button', { name: 'Resume scanning for Increments' }).waitFor();
    await page.getByText('stopped').waitFor();
    const stopped = await p.h.db.query('SELECT scan_enabled FROM event_notifier_subscriptions');
    assert.equal(stopped.rows[0]?.scan_enabled, false);
    await page.getByRole('button', { name: 'Resume scanning for Increments' }).click();
    await page.getByRole('button', { name: 'Stop scanning for Increments' }).waitFor();
    await page.getByRole('button', { name: 'Edit webhook of Increments' }).click();
    const dialog = page.getByRole('dialog', { name: 'Webhook of Increments' });
    await dialog.getByLabel('Webhook URL').fill('ftp://example.com/hook');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('An http(s) URL').waitFor();
    await axeClean('edit webhook dialog');
    await dialog.getByLabel('Webhook URL').fill('https://example.com/hooks/increments');
    await dialog.getByLabel('Webhook retries').fill('3');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Saved with "Send webhooks" left off: the URL is kept, and the records wait (nothing goes to example.com).
    await page.getByText('https://example.com/hooks/increments').waitFor();
    await page.getByRole('button', { name: 'Enable webhook of Increments' }).waitFor();
    const saved = await p.h.db.query(
      'SELECT webhook_url, webhook_max_retries, webhook_enabled FROM event_notifier_subscriptions',
    );
    assert.deepEqual(saved.rows[0], {
      webhook_url: 'https://example.com/hooks/increments',
      webhook_max_retries: 3,
      webhook_enabled: false,
    });
    await axeClean('event notifier with a subscription');
    await screenshot('event-notifier');
  });

  it('deletes a subscription once confirmed: it leaves the list, and its records are gone', async () => {
    const made = await p.h.call('create-subscription', {
      headers: { 'x-api-key': apiKey },
      body: {
        subscriptionName: 'Doomed',
        networkId: 1337,
        address: p.counter,
        formattedAbiEvent: 'event Incremented(address indexed by, uint256 amount, uint256 total)',
        initialBlockNumber: 0,
        scanInterval: 5,
      },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.eventNotifierSubscription.id as string;
    await nav('Webhooks');
    await nav('Event notifier');
    await page.getByRole('button', { name: 'Delete Doomed' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this subscription?' });
    await dialog.getByText('This cannot be undone').waitFor();
    await axeClean('delete subscription dialog');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Doomed' }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Increments' }).waitFor();
    const records = await p.h.call('get-records', { headers: { 'x-api-key': apiKey }, body: { subscriptionId: id } });
    assert.equal(records.status, 404);
  });

  it('adds a webhook endpoint, reads its attempt log, rotates its secret and replays a window', async () => {
    const receiver = await startReceiver();
    try {
      await nav('Webhooks');
      await page.getByText('No endpoint yet').waitFor();
      await axeClean('webhooks, empty');
      await page.getByRole('button', { name: 'Add an endpoint' }).click();
      const add = page.getByRole('dialog', { name: 'Add an endpoint' });
      await add.getByLabel('Endpoint URL').fill('not a url');
      await add.getByRole('button', { name: 'Add' }).click();
      await add.getByText('An http(s) URL').waitFor();
      await add.getByLabel('Endpoint URL').fill(receiver.url);
      await add.getByLabel('Description').fill('Order service');
      await add.getByRole('button', { name: 'Add' }).click();
      const first = (await add.locator('code').textContent()) ?? '';
      assert.match(first, /^whsec_/);
      await axeClean('endpoint added');
      await add.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('cell', { name: /Order service/ }).waitFor();

      const fn = await p.h.db.query<{ id: number }>(
        "SELECT id FROM contract_activated_functions WHERE signature LIKE 'increment%'",
      );
      const executed = await p.h.call('execute-transaction', {
        headers: { 'x-api-key': apiKey },
        body: { contractActivatedFunctionId: fn.rows[0]?.id, functionArgs: ['2'], idempotencyKey: 'console-webhook' },
      });
      assert.equal(executed.status, 201, JSON.stringify(executed.body));
      await receiver.waitFor(() => receiver.deliveries.length >= 1, 60_000, 'transaction.succeeded delivered');
      const webhookId = receiver.deliveries[0]?.headers['webhook-id'] as string;

      await page.getByRole('link', { name: `Attempts of ${receiver.url}` }).click();
      await heading('Attempt log');
      await page.getByRole('cell', { name: 'HTTP 200' }).waitFor({ timeout: 20_000 });
      await page
        .getByRole('cell', { name: /transaction\.succeeded/ })
        .first()
        .waitFor();
      await axeClean('attempt log');
      await screenshot('attempt-log');
      await page.getByLabel('Outcome').selectOption('failed');
      await page.getByText('No attempt matches these filters.').waitFor();
      assert.match(page.url(), /outcome=failed/);

      await nav('Webhooks');
      await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
      const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
      await rotate.getByLabel('Grace period').selectOption('3600');
      await rotate.getByRole('button', { name: 'Rotate now' }).click();
      const second = (await rotate.locator('code').textContent()) ?? '';
      assert.match(second, /^whsec_/);
      assert.notEqual(second, first, 'a new secret');
      await rotate.getByText(/The previous one signs beside it until/).waitFor();
      await axeClean('secret rotated');
      await rotate.getByRole('button', { name: 'Done' }).click();
      await page.getByText(/previous one signs until/).waitFor();

      await page.getByRole('button', { name: `Replay messages of ${receiver.url}` }).click();
      const replay = page.getByRole('dialog', { name: 'Replay messages' });
      await replay.getByLabel('Only the failed ones').uncheck();
      await axeClean('replay dialog');
      await replay.getByRole('button', { name: 'Replay' }).click();
      await replay.getByText('1 message(s) queued again, with their original webhook-id.').waitFor();
      await replay.getByRole('button', { name: 'Done' }).click();
      await receiver.waitFor(() => receiver.deliveries.length >= 2, 30_000, 'the replayed message');
      assert.equal(receiver.deliveries[1]?.headers['webhook-id'], webhookId, 'sent again under its webhook-id');

      await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
      await page.getByRole('button', { name: `Enable ${receiver.url}` }).waitFor();
      await axeClean('webhooks');
      await screenshot('webhooks');
      await nav('Overview');
      await page.getByRole('img', { name: /[1-9]\d* webhook attempts in the last 24 hours/ }).waitFor();
      await screenshot('overview');
    } finally {
      await receiver.close();
    }
  });

  it('rotates the API key as admin: the new key is shown once, and the console goes on with it', async () => {
    await nav('Project');
    await page.getByRole('button', { name: 'Rotate the API key…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the API key?' });
    await axeClean('rotation dialog');
    await dialog.getByRole('button', { name: 'Rotate now' }).click();
    const shown = (await page.locator('.notice.success code').textContent()) ?? '';
    assert.match(shown, /^mtn_test_\w{44}$/);
    assert.equal((await p.h.call('get-project-detail', { headers: { 'x-api-key': apiKey } })).status, 401);
    await nav('Contracts');
    await page.getByRole('cell', { name: RECORD, exact: true }).waitFor();
  });

  it('signs out: the session is gone from the tab, and its token is revoked', async () => {
    const { accessToken } = await page.evaluate(() =>
      JSON.parse(sessionStorage.getItem('mountain-console-session') ?? '{}'),
    );
    assert.equal((await p.h.call('get-project-detail', { headers: bearer(accessToken) })).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    assert.equal((await p.h.call('get-project-detail', { headers: bearer(accessToken) })).status, 401);
    await page.goto(url('/contracts'));
    await heading('Sign in to the Mountain console');
  });

  it('signs a reader in with a one-time link, who sees no write control; the link then is refused', async () => {
    const code = await p.h.consoleLinkCode(reader.userId, { projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await heading('Overview');
    assert.doesNotMatch(page.url(), /code=/, 'the code is out of the address');
    await page.getByText('as a user').waitFor();
    await nav('Contracts');
    await page.getByRole('cell', { name: RECORD, exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Import|Activate|Deactivate/ }).count(), 0);
    assert.equal(await page.getByRole('link', { name: /^Execute/ }).count(), 0);
    await nav('Event notifier');
    await page.getByRole('link', { name: 'Increments' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Create|webhook|scanning/ }).count(), 0);
    await nav('Webhooks');
    await page.getByRole('cell', { name: /Order service/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Add|Enable|Disable|Rotate|Replay|Delete/ }).count(), 0);
    await nav('Project');
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Rotate/ }).count(), 0);
    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.goto(url(`/sign-in#code=${code}`));
    await page.getByText('This sign-in link cannot be used.').waitFor();
    await page.getByText(/already used/).waitFor();
    const expired = await p.h.consoleLinkCode(reader.userId);
    await p.h.db.query("UPDATE console_links SET expires_at = now() - interval '1 second' WHERE used_at IS NULL");
    await page.goto(url(`/sign-in#code=${expired}`));
    await page.getByText(/has expired/).waitFor();
    await axeClean('refused link');
    assert.deepEqual(
      errors.filter((e) => !/401|Unauthorized/.test(e)),
      [],
      'no console error (a CSP refusal would be one)',
    );
  });
});
