// A sign-in link opened in a tab that is signed in already asks first, naming both sessions: a link someone else
// sent must not silently put the person to work in the sender's project. Cancel keeps the session; Sign in switches.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { axeViolations } from '@mountain/testkit/axe.ts';
import type { Page } from 'playwright-core';
import { newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

describe('a sign-in link in a signed-in console', { timeout: 120_000 }, () => {
  let p: Platform;
  let apiKey: string;
  let other: { projectId: number; userId: number };
  let page: Page;

  before(async () => {
    p = await startPlatform();
    apiKey = (await p.h.project('Own project')).apiKey;
    const projectId = (await p.h.project('Sender project')).project.id;
    other = { projectId, userId: (await p.h.member(projectId, 'reader')).userId };
    ({ page } = await newTab(p.browser));
  });
  after(async () => {
    await p?.close();
  });

  const url = (path: string) => `${p.origin}/console${path}`;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const stored = () => page.evaluate(() => JSON.parse(sessionStorage.getItem('mountain-console-session') ?? 'null'));
  const prompt = () => page.getByRole('dialog', { name: 'Sign in as reader of “Sender project”, as a user?' });

  it('asks before replacing the session; Cancel keeps it', async () => {
    await page.goto(url('/'));
    await page.getByLabel('Project API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await page.getByText('Own project').first().waitFor();

    const code = await p.h.consoleLinkCode(other.userId, { projectId: other.projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await prompt().waitFor();
    await prompt().getByText('You are signed in as admin of “Own project”, with the project API key.').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the prompt');
    assert.equal((await stored())?.kind, 'apiKey', 'nothing replaced while it asks');
    await prompt().getByRole('button', { name: 'Cancel' }).click();
    await heading('Overview');
    await page.getByText('with the project API key').waitFor();
    assert.deepEqual(await stored(), { kind: 'apiKey', apiKey });
  });

  it('Sign in switches to the link’s session', async () => {
    const code = await p.h.consoleLinkCode(other.userId, { projectId: other.projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await prompt().getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await page.getByText('as a user').waitFor();
    await page.getByText('Sender project').first().waitFor();
    const session = await stored();
    assert.equal(session?.kind, 'accessToken');
    assert.equal(session?.projectId, other.projectId);
  });
});
