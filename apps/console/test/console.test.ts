// The developer console in Chromium against the real API, worker and anvil, used as a person would: sign in with the
// project API key, import the Counter, activate a function, execute it through the form generated from its ABI (a
// tuple, an array, bytes…), watch it succeed; subscribe to its events and see them; sign out; sign in as a reader
// with a one-time link, which then refuses a second use. axe-core checks every view. Needs the console built
// (`npm test` builds it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COUNTER_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import type { Page } from 'playwright-core';
import { axeViolations, newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const RECORD = COUNTER_FORMATTED_ABI.find((s) => s.startsWith('function record(')) as string;
const INCREMENT = 'function increment(uint256 amount)';
const WHO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

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

  const url = (path: string) => `${p.origin}/console${path}`;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const axeClean = async (view: string) => assert.deepEqual(await axeViolations(page), [], `axe on ${view}`);
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
    await axeClean('project');
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

  it('lists it among the transactions, filtered by status', async () => {
    await nav('Transactions');
    await page.getByRole('cell', { name: 'succeeded' }).waitFor();
    await page.getByLabel('Status').selectOption('reverted');
    await page.getByText('No reverted transaction.').waitFor();
    assert.match(page.url(), /status=reverted/);
    await axeClean('transactions');
  });

  it('creates a subscription to the Counter’s events and shows what it finds', async () => {
    await nav('Event notifier');
    await page.getByText('No subscription yet').waitFor();
    await axeClean('event notifier');
    await page.getByRole('button', { name: 'Create a subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a subscription' });
    await dialog.getByLabel('Name').fill('Increments');
    await dialog.getByLabel('Contract address').fill(p.counter);
    await dialog.getByLabel('Event').fill('event Incremented(address indexed by, uint256 amount, uint256 total)');
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

  it('signs out: the session is gone from the tab', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
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
    assert.equal(await page.getByRole('button', { name: /Create|webhook/ }).count(), 0);
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
