// The console's value and read controls in Chromium against the real API, worker and anvil, used as a person would:
// activate the Till's payable pay() with spending limits (and its receive() with none) and see them listed, execute
// pay() with a value and see the transaction with it (and the Till's balance on chain), see a non-payable function's
// form without a value field, and a value over the limit refused with the API's message; then open the Gauge's Read
// panel, read its views with an argument and at a block, see a revert's reason, and read as a reader. axe-core checks
// every view.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readClient } from '@mountain/testkit/lab/devAccounts.ts';
import {
  ANVIL_DEPLOYER,
  compileGauge,
  deployGauge,
  deployTill,
  GAUGE_FORMATTED_ABI,
  TILL_FORMATTED_ABI,
} from '@mountain/testkit/testContract.ts';
import type { Locator, Page } from 'playwright-core';
import { type Address, createWalletClient, http, parseAbi, publicActions } from 'viem';
import { consoleView, newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const PAY = 'function pay(string memo) payable';
const NOTE = 'function note(string memo)';
const RECEIVE = 'receive() external payable';
const LEVEL = 'function level() view returns (uint256)';
const READING = 'function reading(string label) view returns (Reading)';
const CHECKED = 'function checked(uint256 limit) view returns (uint256)';
const HALF_ETH = '500000000000000000';
const ONE_ETH = '1000000000000000000';
const QUARTER_ETH = '250000000000000000';

describe('the console: value on payable functions, and the Read panel', { timeout: 120_000 }, () => {
  let p: Platform;
  let apiKey: string;
  let projectId: number;
  let reader: { userId: number };
  let page: Page;
  let errors: string[];
  let till: Address;
  let tillId: number;
  let gaugeId: number;
  /** The block the Gauge was deployed in: its level was still 0 there. */
  let gaugeBlock: bigint;

  before(async () => {
    p = await startPlatform();
    const created = await p.h.project('Value project');
    apiKey = created.apiKey;
    projectId = created.project.id;
    reader = await p.h.member(projectId, 'reader');
    till = await deployTill(p.anvil.url);
    const gauge = await deployGauge(p.anvil.url);
    const chain = readClient(p.anvil.url);
    gaugeBlock = await chain.getBlockNumber();
    // The Gauge's level is 9 from the next block on: checked(3) reverts with TooHigh(9, 3).
    const deployer = createWalletClient({ account: ANVIL_DEPLOYER, transport: http(p.anvil.url) }).extend(
      publicActions,
    );
    const hash = await deployer.writeContract({
      address: gauge,
      abi: compileGauge().abi,
      functionName: 'setLevel',
      args: [9n],
      chain: null,
    });
    await deployer.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const headers = { 'x-api-key': apiKey };
    const imported = async (address: Address, formattedAbi: string[]) => {
      const res = await p.h.call('import-contract', { headers, body: { networkId: 1337, address, formattedAbi } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.contract.id as number;
    };
    tillId = await imported(till, TILL_FORMATTED_ABI);
    gaugeId = await imported(gauge, GAUGE_FORMATTED_ABI);
    ({ page, errors } = await newTab(p.browser));
  });
  after(async () => {
    await p?.close();
  });

  const { url, heading, axeClean } = consoleView(
    () => p.origin,
    () => page,
  );
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
  const readForm = (signature: string): Locator => card(gaugeId).getByRole('form', { name: signature, exact: true });

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

  it('reads a view function with an argument, and another at a block number, from the Read panel', async () => {
    await nav('Contracts');
    // A view is read, not activated.
    await row(gaugeId, LEVEL).getByText('read only (view)').waitFor();
    assert.equal(await row(gaugeId, LEVEL).getByRole('button').count(), 0);
    await row(gaugeId, 'function setLevel(uint256 value)')
      .getByRole('button', { name: /^Activate/ })
      .waitFor();
    // Only the Gauge's views and pure functions, none of its functions that change state.
    await card(gaugeId).getByRole('button', { name: 'Read view functions' }).click();
    await card(gaugeId).getByRole('heading', { name: 'Read', exact: true }).waitFor();
    assert.equal(
      await card(gaugeId)
        .getByRole('form', { name: /setLevel/ })
        .count(),
      0,
    );
    await readForm(LEVEL).waitFor();
    await axeClean('read panel');

    const head = await readClient(p.anvil.url).getBlockNumber();
    const reading = readForm(READING);
    await reading.getByLabel('label (string)').fill('north');
    await reading.getByRole('button', { name: 'Read', exact: true }).click();
    await reading.getByText('output 1 ((uint64 at, int128 value, string label))').waitFor();
    await reading.getByText(/^\{"at":"\d+","value":"-9","label":"north"\}$/).waitFor();
    await reading.getByText(`Read at block ${head}.`).waitFor();

    const level = readForm(LEVEL);
    await level.getByRole('button', { name: 'Read', exact: true }).click();
    await level.getByRole('definition').filter({ hasText: /^9$/ }).waitFor();
    await level.getByLabel('Block', { exact: true }).selectOption('number');
    await level.getByLabel('Block number').fill('x');
    await level.getByRole('button', { name: 'Read', exact: true }).click();
    await level.getByText('A block number, in decimal digits').waitFor();
    await level.getByLabel('Block number').fill(String(gaugeBlock));
    await level.getByRole('button', { name: 'Read', exact: true }).click();
    await level.getByText(`Read at block ${gaugeBlock}.`).waitFor();
    await level.getByRole('definition').filter({ hasText: /^0$/ }).waitFor();
    await axeClean('read panel with answers');
  });

  it('shows the reason of a read that reverts', async () => {
    const checked = readForm(CHECKED);
    await checked.getByLabel('limit (uint256)').fill('3');
    await checked.getByRole('button', { name: 'Read', exact: true }).click();
    const reverted = checked.getByRole('alert').filter({ hasText: 'The call reverted.' });
    await reverted.waitFor();
    assert.match(await reverted.innerText(), /TooHigh\(9, 3\)/);
    await checked.getByLabel('limit (uint256)').fill('20');
    await checked.getByRole('button', { name: 'Read', exact: true }).click();
    await checked.getByRole('definition').filter({ hasText: /^9$/ }).waitFor();
    assert.equal(await checked.getByRole('alert').count(), 0, 'the revert is gone with the next answer');
    await axeClean('read after a revert');
  });

  it('lets a reader read, with no control that writes', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    const code = await p.h.consoleLinkCode(reader.userId, { projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await heading('Overview');
    await nav('Contracts');
    await row(tillId, PAY).getByText(`Per transaction: 0.5 ETH (${HALF_ETH} wei)`).waitFor();
    assert.equal(await page.getByRole('button', { name: /Activate|Deactivate|limits/ }).count(), 0);
    assert.equal(await page.getByRole('link', { name: /^Execute/ }).count(), 0);
    await card(gaugeId).getByRole('button', { name: 'Read view functions' }).click();
    const level = readForm(LEVEL);
    await level.getByRole('button', { name: 'Read', exact: true }).click();
    await level.getByRole('definition').filter({ hasText: /^9$/ }).waitFor();
    await axeClean('read panel of a reader');
    assert.deepEqual(
      errors.filter((e) => !/401|Unauthorized|422|Unprocessable/.test(e)),
      [],
      'no console error (a CSP refusal would be one)',
    );
  });
});
