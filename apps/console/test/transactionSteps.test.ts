// The console's speed-up and ordering controls in Chromium against the real API, worker and anvil, used as a person
// would, with anvil mining only when the test says so: speed up a waiting transaction with fees × 2 and see its hash
// change, then mined and succeeded; execute a transaction after another one still waiting, see it wait for it (a link
// to it) and stay created, then both succeed; cancel a broadcast one (ask, confirm) and see it cancelling, then
// cancelled once mined; a reader sees no Speed up or Cancel control. axe-core checks every view.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { counterProject } from '@mountain/api/testing/transactionFlow.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Page } from 'playwright-core';
import { createTestClient, http } from 'viem';
import { consoleView, newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const INCREMENT = 'function increment(uint256 amount)';

describe('the console: speed up a waiting transaction, and one after another', { timeout: 120_000 }, () => {
  let p: Platform;
  let project: Awaited<ReturnType<typeof counterProject>>;
  let reader: { userId: number };
  let page: Page;
  let errors: string[];
  let mine: () => Promise<void>;

  before(async () => {
    // No re-send for want of a receipt: only the speed-up replaces a transaction here.
    p = await startPlatform({ transactions: { resendAfterMs: 3_600_000, monitorPollMs: 50 } });
    project = await counterProject(p.h, p.counter, ['increment']);
    reader = await p.h.member(project.projectId, 'reader');
    // From here nothing is mined until the test mines: a sent transaction waits in the pool.
    const anvil = createTestClient({ mode: 'anvil', transport: http(p.anvil.url) });
    await anvil.setAutomine(false);
    mine = () => anvil.mine({ blocks: 1 });
    ({ page, errors } = await newTab(p.browser));
  });
  after(async () => {
    await p?.close();
  });

  const { url, heading, axeClean } = consoleView(
    () => p.origin,
    () => page,
  );
  const status = (name: string, timeout = 20_000) =>
    page.locator('#tx-facts .badge', { hasText: name }).waitFor({ timeout });
  const shownHash = () => page.getByRole('list', { name: 'Lifecycle' }).locator('.mono').innerText();
  /** The gas price the page shows, in wei (`1.5 gwei (1500000000 wei)`). */
  const shownGasPrice = async () =>
    BigInt(/\((\d+) wei\)$/.exec(await page.locator('dl.facts dt:text-is("Gas price") + dd').innerText())?.[1] ?? 'x');
  const speedUp = () => page.getByRole('region', { name: 'Speed up' });
  /** Mines a block every 200 ms until `done` resolves: a transaction sent after another is mined needs one more. */
  const minedUntil = async (done: Promise<void>) => {
    let over = false;
    const mining = (async () => {
      while (!over) {
        await mine();
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    try {
      await done;
    } finally {
      over = true;
      await mining;
    }
  };
  /** Fills the execute form of increment(amount) and sends it; returns the new transaction's id from its page. */
  const execute = async (amount: string, afterTransactionId?: string) => {
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Contracts', exact: true })
      .click();
    await page.getByRole('link', { name: `Execute ${INCREMENT}` }).click();
    await heading('Execute a function');
    await page.getByLabel('amount (uint256)').fill(amount);
    if (afterTransactionId) {
      await page.getByLabel('After transaction').selectOption({ value: afterTransactionId });
      await axeClean('execute form with an after transaction');
    }
    await page.getByRole('button', { name: 'Execute', exact: true }).click();
    await heading('Transaction');
    const id = /\/transactions\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    assert.ok(id, page.url());
    return id;
  };

  it('speeds up a broadcast transaction with fees × 2: its hash changes on the page, then it succeeds', async () => {
    await page.goto(url('/'));
    await heading('Sign in to the Mountain console');
    await page.getByLabel('Project API key').fill(project.headers['x-api-key'] as string);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await execute('1');
    await status('broadcasted');
    const before = await shownHash();
    const priceBefore = await shownGasPrice();
    assert.match(before, /^0x[0-9a-f]{64}$/);
    const field = speedUp().getByLabel('Fee multiplier');
    assert.equal(await field.inputValue(), '1.5');
    await axeClean('a broadcast transaction with its Speed up control');
    await field.fill('11');
    await speedUp().getByRole('button', { name: 'Speed up' }).click();
    await speedUp().getByText('A multiplier from 1.1 to 10', { exact: true }).waitFor();
    await field.fill('2');
    await speedUp().getByRole('button', { name: 'Speed up' }).click();
    await speedUp().getByText('Re-signed with fees × 2').waitFor({ timeout: 20_000 });
    const after = await shownHash();
    assert.match(after, /^0x[0-9a-f]{64}$/);
    assert.notEqual(after, before, 'the page shows the new hash');
    assert.ok((await shownGasPrice()) >= priceBefore * 2n, 'and the doubled gas price');
    await axeClean('a sped-up transaction');

    await mine();
    await status('succeeded');
    assert.equal(await shownHash(), after, 'the chain mined the re-signed version');
    assert.equal(await speedUp().getByRole('button').count(), 0, 'no Speed up button once mined');
  });

  it('executes one after another still waiting: it waits for it and stays created, then both succeed', async () => {
    const first = await execute('2');
    await status('broadcasted');
    const second = await execute('3', first);
    assert.notEqual(second, first);
    const waits = page.getByRole('definition').filter({ hasText: 'Waits for' });
    await waits.getByRole('link', { name: first }).waitFor();
    await status('created');
    await page.getByText(`Waiting for transaction ${first} to succeed`).waitFor();
    assert.equal(await speedUp().count(), 0, 'no Speed up control before it is sent');
    await axeClean('a transaction waiting for another');

    await waits.getByRole('link', { name: first }).click();
    await page.getByText(second, { exact: true }).waitFor({ state: 'detached' });
    await page.getByText(first, { exact: true }).first().waitFor();
    await minedUntil(status('succeeded'));
    await page.goBack();
    await page.getByText(second, { exact: true }).first().waitFor();
    await minedUntil(status('succeeded', 30_000));
    const states = await p.h.db.query<{ id: string; status: string; after: string | null }>(
      'SELECT id, status, after_transaction_id AS after FROM transactions WHERE id = ANY($1) ORDER BY created_at',
      [[first, second]],
    );
    assert.deepEqual(states.rows, [
      { id: first, status: 'succeeded', after: null },
      { id: second, status: 'succeeded', after: first },
    ]);
  });

  it('cancels a broadcast transaction: asks, confirms, shows it being cancelled, then cancelled once mined', async () => {
    const id = await execute('5');
    await status('broadcasted');
    const before = await shownHash();
    const cancel = () => page.getByRole('region', { name: 'Cancel', exact: true });
    await cancel().getByRole('button', { name: 'Cancel transaction' }).click();
    await cancel().getByRole('button', { name: 'Keep it' }).click();
    assert.equal(await status('broadcasted').then(() => true), true, 'Keep it changes nothing');
    await cancel().getByRole('button', { name: 'Cancel transaction' }).click();
    await cancel().getByRole('button', { name: 'Yes, cancel it' }).click();
    await status('cancelling');
    await cancel().getByText('Being cancelled: a 0-value transfer to the wallet itself').waitFor();
    await waitFor(async () => ((await shownHash()) !== before ? true : undefined), 20_000, 'the transfer’s hash');
    assert.equal(await speedUp().count(), 0, 'no Speed up control while it is cancelled');
    await axeClean('a transaction being cancelled');
    await mine();
    await status('cancelled');
    await cancel().getByText('Cancelled: Cancelled by cancel-transaction.').waitFor();
    assert.equal(await cancel().getByRole('button').count(), 0, 'no Cancel button once cancelled');
    await axeClean('a cancelled transaction');
    const { rows } = await p.h.db.query<{ status: string }>('SELECT status FROM transactions WHERE id = $1', [id]);
    assert.equal(rows[0]?.status, 'cancelled');
  });

  it('shows a reader a broadcast transaction without a Speed up or Cancel control', async () => {
    const sent = await p.h.call('execute-transaction', {
      headers: project.headers,
      body: { contractActivatedFunctionId: project.ids.increment, functionArgs: ['4'], idempotencyKey: 'for-reader' },
    });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    const id = sent.body.transaction.id as string;
    await waitFor(
      async () => {
        const t = await p.h.call('get-transaction', { headers: project.headers, query: { transactionId: id } });
        return t.body.transaction.status === 'broadcasted' || undefined;
      },
      20_000,
      'the transaction to be broadcast',
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    const code = await p.h.consoleLinkCode(reader.userId, { projectId: project.projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await heading('Overview');
    await page.getByText('· reader').waitFor();
    await page.goto(url(`/transactions/${id}`));
    await heading('Transaction');
    await page.getByText('· reader').waitFor();
    await status('broadcasted');
    assert.equal(await speedUp().count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Speed up' }).count(), 0);
    assert.equal(await page.getByLabel('Fee multiplier').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Cancel transaction' }).count(), 0, 'nor a Cancel one');
    await axeClean('a broadcast transaction as a reader');
    await minedUntil(status('succeeded'));
    assert.deepEqual(
      errors.filter((e) => !/401|Unauthorized/.test(e)),
      [],
      'no console error (a CSP refusal would be one)',
    );
  });
});
