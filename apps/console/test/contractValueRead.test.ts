// The console's value controls in Chromium against the real API, worker and anvil, used as a person would:
// activate the Till's payable pay() with spending limits (and its receive() with none) and see them listed, execute
// pay() with a value and see the transaction with it (and the Till's balance on chain), see a non-payable function's
// form without a value field, and a value over the limit refused with the API's message; and a reader sees the limits
// without a control that writes. axe-core checks every view.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { axeViolations } from '@mountain/testkit/axe.ts';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { deployTill, TILL_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import type { Locator, Page } from 'playwright-core';
import { type Address, parseAbi } from 'viem';
import { newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const PAY = 'function pay(string memo) payable';
const NOTE = 'function note(string memo)';
const RECEIVE = 'receive() external payable';
const HALF_ETH = '500000000000000000';
const ONE_ETH = '1000000000000000000';
const QUARTER_ETH = '250000000000000000';

describe('the console: value on payable functions', { timeout: 120_000 }, () => {
  let p: Platform;
  let apiKey: string;
  let projectId: number;
  let reader: { userId: number };
  let page: Page;
  let errors: string[];
  let till: Address;
  let tillId: number;

  before(async () => {
    p = await startPlatform();
    const created = await p.h.project('Value project');
    apiKey = created.apiKey;
    projectId = created.project.id;
    reader = await p.h.member(projectId, 'reader');
    till = await deployTill(p.anvil.url);
    const headers = { 'x-api-key': apiKey };
    const res = await p.h.call('import-contract', {
      headers,
      body: { networkId: 1337, address: till, formattedAbi: TILL_FORMATTED_ABI },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    tillId = res.body.contract.id;
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
    await heading(name);
  };
  const card = (contractId: number): Locator =>
    page.getByRole('region', { name: new RegExp(`^Contract ${contractId} on `) });
  const row = (contractId: number, signature: string): Locator =>
    card(contractId)
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: signature, exact: true }) });

  it('activates pay() with spending limits and receive() with none, and lists them in wei and ether', async () => {
    await page.goto(url('/'));
    await heading('Sign in to the Mountain console');
    await page.getByLabel('Project API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await nav('Contracts');
    await row(tillId, PAY).getByText('payable', { exact: true }).waitFor();
    await row(tillId, NOTE).getByText('not payable').waitFor();

    await page.getByRole('button', { name: `Activate ${PAY}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Activate a payable function' });
    await dialog.getByLabel('Most value per transaction (wei)').fill('0.5');
    await dialog.getByRole('button', { name: 'Activate' }).click();
    await dialog.getByText('A whole number of wei').waitFor();
    await axeClean('limits dialog with an error');
    await dialog.getByLabel('Most value per transaction (wei)').fill(HALF_ETH);
    await dialog.getByText(`For one transaction: 0.5 ETH (${HALF_ETH} wei)`).waitFor();
    await dialog.getByLabel('Most value per day (wei)').fill(ONE_ETH);
    await dialog.getByRole('button', { name: 'Activate' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(tillId, PAY).getByText(`Per transaction: 0.5 ETH (${HALF_ETH} wei)`).waitFor();
    await row(tillId, PAY).getByText(`Per day: 1 ETH (${ONE_ETH} wei)`).waitFor();
    await page.getByRole('link', { name: `Execute ${PAY}` }).waitFor();

    await page.getByRole('button', { name: `Activate ${RECEIVE}` }).click();
    await dialog.getByRole('button', { name: 'Activate' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(tillId, RECEIVE).getByText('Per transaction: no value').waitFor();
    await row(tillId, RECEIVE).getByText('Per day: no value').waitFor();

    // A function that takes no value is activated at once, without limits.
    await page.getByRole('button', { name: `Activate ${NOTE}` }).click();
    await page.getByRole('link', { name: `Execute ${NOTE}` }).waitFor();
    await axeClean('contracts with limits');

    const { rows } = await p.h.db.query<{ signature: string; per_tx: string; per_day: string }>(
      `SELECT signature, max_value_per_transaction::text AS per_tx, max_value_per_day::text AS per_day
         FROM contract_activated_functions ORDER BY id`,
    );
    assert.deepEqual(rows, [
      { signature: 'pay(string)', per_tx: HALF_ETH, per_day: ONE_ETH },
      { signature: 'receive()', per_tx: '0', per_day: '0' },
      { signature: 'note(string)', per_tx: '0', per_day: '0' },
    ]);
  });

  it('executes pay() with a value, shows the transaction with it, and the Till holds it on chain', async () => {
    await page.getByRole('link', { name: `Execute ${PAY}` }).click();
    await heading('Execute a function');
    await page
      .getByText(`At most 0.5 ETH (${HALF_ETH} wei) per transaction, and 1 ETH (${ONE_ETH} wei) per day`)
      .waitFor();
    await page.getByLabel('memo (string)').fill('from the console');
    await page.getByLabel('Value (wei)').fill(QUARTER_ETH);
    await page.getByText(`Sending 0.25 ETH (${QUARTER_ETH} wei).`).waitFor();
    await axeClean('execute form with a value');
    await page.getByRole('button', { name: 'Execute', exact: true }).click();
    await heading('Transaction');
    await page.locator('#tx-facts .badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await page.getByText(`0.25 ETH (${QUARTER_ETH} wei)`).waitFor();
    await axeClean('transaction with a value');

    const chain = readClient(p.anvil.url);
    assert.equal(await chain.getBalance({ address: till }), BigInt(QUARTER_ETH));
    const received = await chain.readContract({
      address: till,
      abi: parseAbi(['function received() view returns (uint256)']),
      functionName: 'received',
    });
    assert.equal(received, BigInt(QUARTER_ETH));
    const { rows } = await p.h.db.query<{ value: string }>('SELECT value::text AS value FROM transactions');
    assert.deepEqual(rows, [{ value: QUARTER_ETH }]);
  });

  it('refuses a value over the per-transaction limit with the API’s message, and sends nothing', async () => {
    await nav('Contracts');
    await page.getByRole('link', { name: `Execute ${PAY}` }).click();
    await heading('Execute a function');
    await page.getByLabel('memo (string)').fill('too much');
    await page.getByLabel('Value (wei)').fill('1.5');
    await page.getByRole('button', { name: 'Execute', exact: true }).click();
    await page.getByText('A whole number of wei, in decimal digits').waitFor();
    await page.getByLabel('Value (wei)').fill('600000000000000000');
    await page.getByRole('button', { name: 'Execute', exact: true }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'SPENDING_LIMIT_EXCEEDED' });
    await refusal.waitFor();
    const text = await refusal.innerText();
    assert.match(text, /over maxValuePerTransaction/);
    assert.match(text, /750000000000000000 wei is left today/);
    await axeClean('execute form refused over the limit');
    assert.equal((await p.h.db.query('SELECT 1 FROM transactions')).rowCount, 1, 'nothing more was created');
  });

  it('shows a function that takes no value without a value field', async () => {
    await nav('Contracts');
    await page.getByRole('link', { name: `Execute ${NOTE}` }).click();
    await heading('Execute a function');
    await page.getByLabel('memo (string)').waitFor();
    assert.equal(await page.getByLabel('Value (wei)').count(), 0);
    assert.equal(await page.getByText(/per transaction/).count(), 0);
  });

  it('shows a reader the limits, with no control that writes', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    const code = await p.h.consoleLinkCode(reader.userId, { projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await heading('Overview');
    await nav('Contracts');
    await row(tillId, PAY).getByText(`Per transaction: 0.5 ETH (${HALF_ETH} wei)`).waitFor();
    assert.equal(await page.getByRole('button', { name: /Activate|Deactivate|limits/ }).count(), 0);
    assert.equal(await page.getByRole('link', { name: /^Execute/ }).count(), 0);
    await axeClean('contracts of a reader');
    assert.deepEqual(
      errors.filter((e) => !/401|Unauthorized|422|Unprocessable/.test(e)),
      [],
      'no console error (a CSP refusal would be one)',
    );
  });
});
