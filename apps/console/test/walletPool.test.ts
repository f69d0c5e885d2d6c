// The project page lists the project's whole wallet pool, by network type: an admin adds wallets through the
// console (add-system-wallets), sees each new one with its balance (0 on the local chain), a low-balance warning
// (under the local chain's 1 ETH threshold) and its transactions in flight and waiting, and reads the API's refusal
// when the pool would pass its limit; a reader sees the pool and no control to add to it. axe checks each state.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiKey as keyHeader } from '@mountain/api/testing';
import { rpcCall } from '@mountain/testkit/jsonRpc.ts';
import type { Page } from 'playwright-core';
import { consoleView, newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const SHOTS_DIR = process.env.CONSOLE_DIALOG_SCREENSHOTS;

describe('the wallet pool on the project page', { timeout: 120_000 }, () => {
  let p: Platform;
  let apiKey: string;
  let projectId: number;
  let reader: { userId: number };
  let page: Page;

  before(async () => {
    p = await startPlatform();
    ({
      apiKey,
      project: { id: projectId },
    } = await p.h.project('Pool project'));
    reader = await p.h.member(projectId, 'reader');
    // The primary testnet wallet funded with 10 ETH (anvil's dev accounts are others): over the threshold.
    const detail = await p.h.call('get-project-detail', { headers: keyHeader(apiKey) });
    await rpcCall(p.anvil.url, 'anvil_setBalance', [
      detail.body.data.mSystemWalletTestnet.address,
      `0x${(10n * 10n ** 18n).toString(16)}`,
    ]);
    ({ page } = await newTab(p.browser));
  });
  after(async () => {
    await p?.close();
  });

  const { url, heading, axeClean, signInWithKey } = consoleView(
    () => p.origin,
    () => page,
  );
  /** The page as it is now, whole, when pictures are asked for (CONSOLE_DIALOG_SCREENSHOTS=<dir>). */
  const picture = async (name: string) => {
    if (!SHOTS_DIR) return;
    mkdirSync(SHOTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS_DIR, `${name}.png`), fullPage: true });
  };
  const card = (title: string) => page.getByRole('region', { name: title, exact: true });

  it('lets an admin add testnet wallets, then lists each with its balance, a low-balance warning and its counts', async () => {
    await signInWithKey(apiKey);
    await page.goto(url('/project'));
    await heading('Project');
    await page.getByRole('heading', { name: 'Testnet pool' }).waitFor();
    await card('Mainnet wallet primary').getByText('no network of this type is configured here').waitFor();

    await page.getByRole('button', { name: 'Add wallets…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add system wallets' });
    await dialog.getByLabel('Network type').selectOption('testnet');
    await dialog.getByLabel('How many').fill('0');
    await dialog.getByRole('button', { name: 'Add wallets', exact: true }).click();
    await dialog.getByText('A whole number from 1 to 64').waitFor();
    await axeClean('add wallets dialog with a field error');
    await picture('add-wallets-dialog-with-a-field-error');
    await dialog.getByLabel('How many').fill('2');
    await dialog.getByRole('button', { name: 'Add wallets', exact: true }).click();
    await dialog.getByText('2 testnet wallets added').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The detail and the balances read again: the pool holds the two new wallets, after the primary one.
    const detail = await p.h.call('get-project-detail', { headers: keyHeader(apiKey) });
    const testnet = (detail.body.data.mSystemWallets as { address: string; networkType: string }[]).filter(
      (w) => w.networkType === 'testnet',
    );
    assert.equal(testnet.length, 3);
    await page.getByText('3 wallets').waitFor();
    for (const [i, wallet] of testnet.slice(1).entries()) {
      const added = card(`Testnet wallet ${i + 2}`);
      await added.getByText(wallet.address).waitFor();
      await added.getByText('0 ETH on Local chain 1337', { exact: true }).waitFor();
      await added.getByRole('status').filter({ hasText: 'Low balance: under 1 ETH — fund this wallet' }).waitFor();
      await added.getByText('0 in flight, 0 waiting on Local chain 1337').waitFor();
    }
    // The primary wallet, funded, has no warning.
    await card('Testnet wallet primary').getByText('10 ETH on Local chain 1337', { exact: true }).waitFor();
    await card('Testnet wallet primary').getByText('0 in flight, 0 waiting on Local chain 1337').waitFor();
    assert.equal(
      await card('Testnet wallet primary')
        .getByText(/Low balance/)
        .count(),
      0,
    );
    await axeClean('project with a pool');
    await picture('project-with-a-pool');
  });

  it('shows the API’s refusal when the pool would pass its limit', async () => {
    await page.getByRole('button', { name: 'Add wallets…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add system wallets' });
    await dialog.getByLabel('Network type').selectOption('testnet');
    await dialog.getByLabel('How many').fill('64');
    await dialog.getByRole('button', { name: 'Add wallets', exact: true }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: `Project ${projectId} would have 67 testnet system wallets; this deployment allows 64` })
      .waitFor();
    await axeClean('add wallets refused');
    await picture('add-wallets-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('heading', { name: /^Testnet wallet 4/ }).count(), 0);
  });

  it('shows a reader the pool, with no control to add to it', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    await page.goto(url(`/sign-in#code=${await p.h.consoleLinkCode(reader.userId, { projectId })}`));
    await heading('Overview');
    await page.goto(url('/project'));
    await heading('Project');
    await card('Testnet wallet 3').getByText('Low balance: under 1 ETH — fund this wallet').waitFor();
    await page.getByText('reader (user access token)').waitFor();
    assert.equal(await page.getByRole('button', { name: /Add wallets/ }).count(), 0);
    await axeClean('project as a reader');
    await picture('project-as-a-reader');
  });
});
