// A subscription of two events of two contracts, with a filter and a condition, made and changed in the console as a
// person would, in Chromium against the real API, worker and anvil: the create dialog's advanced part (a second
// event, an extra address, a filter on `to`, a condition on `value`), a refusal of the API shown beside the field it
// names, the records that say which event of which contract each is; the edit dialog prefilled, a rename and a wider
// condition, shown in the list; a rewind that finds the event the wider condition now takes and, asked to, sends the
// delivered ones again under their webhook-id; a reader sees neither Edit nor Rewind. axe-core checks every dialog.
// With CONSOLE_DIALOG_SCREENSHOTS=<dir>, the dialogs are pictured there.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiKey as keyHeader } from '@mountain/api/testing';
import { deployFleet, type Fleet, type Shot } from '@mountain/testkit/eventFleet.ts';
import { devAccount } from '@mountain/testkit/lab/devAccounts.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import type { Locator, Page } from 'playwright-core';
import { consoleView, newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

const TRANSFER = 'event Transfer(address indexed from, address indexed to, uint256 value)';
const PAYMENT = 'event Payment(address indexed from, address indexed to, uint256 value, string memo)';
const TO = devAccount(6).address;
const OTHER = devAccount(7).address;
const SHOTS_DIR = process.env.CONSOLE_DIALOG_SCREENSHOTS;

interface Subscription {
  id: string;
  subscriptionName: string;
  initialBlockNumber: number;
  addresses: string[];
  formattedAbiEvents: string[];
  filters: Record<string, unknown[]>;
  conditions: { field: string; op: string; value: unknown }[];
}
interface RecordSeen {
  id: string;
  eventName: string;
  contractAddress: string;
  status: string;
  decodedLog: Record<string, unknown>;
}

describe(
  'the console: a subscription of several events and contracts, edited and rewound',
  { timeout: 180_000 },
  () => {
    let p: Platform;
    let key: string;
    let projectId: number;
    let reader: { userId: number };
    let fleet: Fleet;
    let receiver: Receiver;
    let page: Page;
    let errors: string[];
    /** The watched contracts: the first is `address`, the second one of `addresses`; the third is not watched. */
    let watched: [string, string, string];

    before(async () => {
      p = await startPlatform();
      const created = await p.h.project('Watch project');
      key = created.apiKey;
      projectId = created.project.id;
      reader = await p.h.member(projectId, 'reader');
      fleet = await deployFleet(p.anvil.url, 3);
      watched = fleet.members as [string, string, string];
      receiver = await startReceiver();
      // What the subscription takes (Transfer and Payment of the first two, to TO, value ≥ 100), what its wider
      // condition (≥ 40) takes later, and what it never takes (another recipient, event or contract).
      const shots: Shot[] = [
        { member: 0, kind: 0, to: TO, value: 150n },
        { member: 1, kind: 1, to: TO, value: 200n },
        { member: 1, kind: 0, to: TO, value: 50n },
        { member: 0, kind: 0, to: OTHER, value: 150n },
        { member: 0, kind: 2, to: TO, value: 150n },
        { member: 0, kind: 3, to: TO, value: 500n },
        { member: 2, kind: 0, to: TO, value: 300n },
      ];
      await fleet.fire(shots);
      ({ page, errors } = await newTab(p.browser));
      await signInWithKey(key);
    });
    after(async () => {
      await receiver?.close();
      await p?.close();
    });

    const { url, heading, axeClean, signInWithKey } = consoleView(
      () => p.origin,
      () => page,
    );
    const api = async (operation: string, body: unknown = {}) => {
      const res = await p.h.call(operation, { headers: keyHeader(key), body });
      assert.equal(res.status, 200, `${operation}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const subscriptions = async (): Promise<Subscription[]> =>
      (await api('get-subscriptions')).eventNotifierSubscriptions;
    const records = async (subscriptionId: string): Promise<RecordSeen[]> =>
      (await api('get-records', { subscriptionId })).eventNotifierRecords;
    const toEvents = async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Event notifier' }).click();
      await heading('Event notifier');
    };
    /** The dialog as it is now, when pictures are asked for: the page, the dialog whole (the window made tall). */
    const picture = async (name: string, dialog: Locator) => {
      if (!SHOTS_DIR) return;
      mkdirSync(SHOTS_DIR, { recursive: true });
      const size = page.viewportSize() ?? { width: 1280, height: 800 };
      for (const [width, suffix] of [
        [size.width, ''],
        [390, '-phone'],
      ] as const) {
        await page.setViewportSize({ width, height: size.height });
        const height = await dialog.evaluate((d) => (d.closest('.modal') as HTMLElement).scrollHeight);
        await page.setViewportSize({ width, height: Math.ceil(height / 0.9) + 40 });
        await page.waitForTimeout(100);
        await page.screenshot({ path: path.join(SHOTS_DIR, `${name}${suffix}.png`) });
      }
      await page.setViewportSize(size);
    };
    /** The view as it is now, whole, when pictures are asked for. */
    const pictureView = async (name: string) => {
      if (SHOTS_DIR) await page.screenshot({ path: path.join(SHOTS_DIR, `${name}.png`), fullPage: true });
    };
    /** The control's error, as a screen reader reads it with the control: its aria-describedby holds `text`. */
    const describedBy = async (control: Locator) => {
      assert.equal(await control.getAttribute('aria-invalid'), 'true');
      const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
      return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' ');
    };

    it('creates one of two events and two contracts with a filter and a condition; a refusal names its field', async () => {
      await toEvents();
      await page.getByRole('button', { name: 'Create a subscription' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create a subscription' });
      await dialog.getByLabel('Name').fill('Payouts');
      await dialog.getByLabel('Contract address', { exact: true }).fill(watched[0]);
      await dialog.getByLabel('Event', { exact: true }).fill(TRANSFER);
      await dialog.getByLabel('Webhook URL').fill(receiver.url);
      await dialog.getByText('Advanced: more events, contracts, filters').click();
      await dialog.getByLabel('More events').fill(PAYMENT);
      await dialog.getByLabel('More contract addresses').fill(watched[1].toLowerCase());
      await dialog.getByRole('button', { name: 'Add a filter' }).click();
      // The parameters offered are the first event's indexed ones.
      const filterParameter = dialog.getByLabel('Filter 1 parameter');
      assert.deepEqual((await filterParameter.locator('option').allTextContents()).slice(1), [
        'from (address)',
        'to (address)',
      ]);
      await filterParameter.selectOption('to');
      await dialog.getByLabel('Filter 1 values').fill(TO);
      await dialog.getByRole('button', { name: 'Add a condition' }).click();
      // A person's slip: an address compared with "at least". The API refuses it, naming the operator.
      await dialog.getByLabel('Condition 1 parameter').selectOption('from');
      await dialog.getByLabel('Condition 1 operator').selectOption('gte');
      await dialog.getByLabel('Condition 1 value').fill('100');
      await picture('create-subscription', dialog);
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      await dialog.getByText('"gte" does not apply to an address (use eq, neq, in)').waitFor();
      assert.match(await describedBy(dialog.getByLabel('Condition 1 operator')), /"gte" does not apply to an address/);
      assert.equal(await dialog.getByRole('alert').count(), 0, 'the refusal is beside its field, not repeated above');
      await axeClean('create dialog with a refused condition');
      await picture('create-subscription-refused', dialog);
      assert.deepEqual(await subscriptions(), [], 'nothing created');

      await dialog.getByLabel('Condition 1 parameter').selectOption('value');
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      await dialog.getByText(/whsec_/).waitFor();
      await dialog.getByRole('button', { name: 'Done' }).click();
      const [made] = await subscriptions();
      assert.ok(made);
      assert.deepEqual(
        {
          formattedAbiEvents: made.formattedAbiEvents,
          addresses: made.addresses,
          filters: made.filters,
          conditions: made.conditions,
        },
        {
          formattedAbiEvents: [PAYMENT],
          addresses: [watched[1]],
          filters: { to: [TO] },
          conditions: [{ field: 'value', op: 'gte', value: '100' }],
        },
      );
      // The list says what it watches beside its first event.
      const summary = page.locator('ul.watch-summary');
      for (const part of ['and 1 more event', '2 contracts', 'value ≥ 100']) await summary.getByText(part).waitFor();
      await axeClean('event notifier with a subscription of several events');
      await pictureView('events');

      await page.getByRole('link', { name: 'Payouts' }).click();
      await heading('Records of Payouts');
      await page.getByText('"value": "200"').waitFor({ timeout: 60_000 });
      await page.getByText('"value": "150"').waitFor();
      // Each record says which event of which contract it is.
      const rows = page.getByRole('row');
      await rows.filter({ hasText: '"value": "200"' }).getByText('Payment', { exact: true }).waitFor();
      await rows.filter({ hasText: '"value": "200"' }).locator(`[title="${watched[1]}"]`).waitFor();
      await rows.filter({ hasText: '"value": "150"' }).getByText('Transfer', { exact: true }).waitFor();
      await rows.filter({ hasText: '"value": "150"' }).locator(`[title="${watched[0]}"]`).waitFor();
      await axeClean('records of several events');
      await pictureView('records');
      const found = await records(made.id);
      assert.deepEqual(found.map((r) => `${r.eventName} ${r.contractAddress} ${r.decodedLog.value}`).sort(), [
        `Payment ${watched[1]} 200`,
        `Transfer ${watched[0]} 150`,
      ]);
      await receiver.waitFor(() => receiver.deliveries.length >= 2, 30_000, 'the two records delivered');
    });

    it('edits it, prefilled: renamed and its condition widened, and the list shows the change', async () => {
      await toEvents();
      await page.getByRole('button', { name: 'Edit Payouts' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit Payouts' });
      assert.equal(await dialog.getByLabel('Name').inputValue(), 'Payouts');
      assert.equal(await dialog.getByLabel('Scan every (seconds)').inputValue(), '5');
      assert.equal(await dialog.getByLabel('More events').inputValue(), PAYMENT);
      assert.equal(await dialog.getByLabel('More contract addresses').inputValue(), watched[1]);
      assert.equal(await dialog.getByLabel('Filter 1 parameter').inputValue(), 'to');
      assert.equal(await dialog.getByLabel('Filter 1 values').inputValue(), TO);
      assert.equal(await dialog.getByLabel('Condition 1 parameter').inputValue(), 'value');
      assert.equal(await dialog.getByLabel('Condition 1 operator').inputValue(), 'gte');
      assert.equal(await dialog.getByLabel('Condition 1 value').inputValue(), '100');
      await dialog.getByLabel('Name').fill('Payouts, small ones too');
      await dialog.getByLabel('Condition 1 value').fill('40');
      await axeClean('edit subscription dialog');
      await picture('edit-subscription', dialog);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('link', { name: 'Payouts, small ones too' }).waitFor();
      await page.locator('ul.watch-summary').getByText('value ≥ 40').waitFor();
      const [changed] = await subscriptions();
      assert.equal(changed?.subscriptionName, 'Payouts, small ones too');
      assert.deepEqual(changed?.conditions, [{ field: 'value', op: 'gte', value: '40' }]);
      assert.deepEqual(changed?.filters, { to: [TO] }, 'the rest as it was');
      assert.deepEqual(changed?.addresses, [watched[1]]);
    });

    it('rewinds it: the event the wider condition takes is found, and the delivered ones are sent again', async () => {
      const [subscription] = await subscriptions();
      assert.ok(subscription);
      const before = receiver.deliveries.map((d) => d.headers['webhook-id']);
      await page.getByRole('button', { name: 'Rewind Payouts, small ones too' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rewind Payouts, small ones too' });
      await dialog.getByText('Events it did not record before').waitFor();
      const from = dialog.getByLabel('From block');
      assert.equal(await from.inputValue(), String(subscription.initialBlockNumber));
      await dialog.getByLabel('Send again the events already delivered').check();
      await axeClean('rewind dialog');
      await picture('rewind-subscription', dialog);
      // Past the next block to scan: the API refuses it, beside the field.
      await from.fill('99999999');
      await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
      await dialog.getByText(/is past the next block to scan \(\d+\): a rewind goes back only/).waitFor();
      assert.match(await describedBy(from), /is past the next block to scan/);
      await axeClean('rewind dialog with a refusal');
      await from.fill(String(subscription.initialBlockNumber));
      await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
      await dialog
        .getByText(
          new RegExp(
            `Scanning again from block ${subscription.initialBlockNumber}\\. 2 record\\(s\\) already sent are sent again\\.|A scan is running`,
          ),
        )
        .waitFor();
      await axeClean('rewound');
      await dialog.getByRole('button', { name: 'Done' }).click();

      await page.getByRole('link', { name: 'Payouts, small ones too' }).click();
      await heading('Records of Payouts, small ones too');
      await page.getByText('"value": "50"').waitFor({ timeout: 60_000 });
      await page.getByRole('row').filter({ hasText: '"value": "50"' }).getByText('Transfer', { exact: true }).waitFor();
      const found = await records(subscription.id);
      assert.deepEqual(
        found.map((r) => `${r.eventName} ${r.contractAddress} ${r.decodedLog.value}`).sort(),
        [`Payment ${watched[1]} 200`, `Transfer ${watched[0]} 150`, `Transfer ${watched[1]} 50`].sort(),
        'each event recorded once, the new one beside them',
      );
      // The two delivered before are sent again under their webhook-id, and the new one once.
      await receiver.waitFor(() => receiver.deliveries.length >= 5, 60_000, 'the redelivered and the new record');
      await waitFor(async () =>
        (await records(subscription.id)).every((r) => r.status === 'notified') ? true : undefined,
      );
      const ids = receiver.deliveries.map((d) => d.headers['webhook-id']);
      const again = ids.slice(before.length);
      assert.deepEqual(
        before.map((id) => again.filter((a) => a === id).length),
        [1, 1],
        'each delivered record sent once more',
      );
      const fresh = found.find((r) => r.decodedLog.value === '50');
      assert.deepEqual(
        ids.filter((id) => id === fresh?.id),
        [fresh?.id],
      );
    });

    it('shows a reader the records with their event and contract, and no Edit or Rewind', async () => {
      const tab = await newTab(p.browser);
      try {
        const code = await p.h.consoleLinkCode(reader.userId, { projectId });
        await tab.page.goto(url(`/sign-in#code=${code}`));
        await tab.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await tab.page.goto(url('/events'));
        await tab.page.getByRole('heading', { level: 1, name: 'Event notifier' }).waitFor();
        await tab.page.getByRole('link', { name: 'Payouts, small ones too' }).waitFor();
        await tab.page.getByText('2 contracts').waitFor();
        assert.equal(await tab.page.getByRole('button', { name: /Edit|Rewind|Delete/ }).count(), 0);
        await tab.page.getByRole('link', { name: 'Payouts, small ones too' }).click();
        await tab.page.getByText('Payment', { exact: true }).waitFor({ timeout: 20_000 });
        assert.equal(await tab.page.getByRole('button', { name: /Resend/ }).count(), 0);
        assert.deepEqual(tab.errors, [], 'no console error in the reader’s tab');
      } finally {
        await tab.page.close();
      }
      assert.deepEqual(
        errors.filter((e) => !/400|Bad Request/.test(e)),
        [],
        'no console error but the refusals (a CSP refusal would be one)',
      );
    });
  },
);
