// A sign-in link opened in a tab that is signed in already asks first, naming both sessions: a link someone else
// sent must not silently put the person to work in the sender's project. Cancel keeps the session and revokes the
// token the link gave; Sign in switches, and revokes the token of the session it leaves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer } from '@mountain/api/testing';
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
  const waitFor401 = async (token: string) => {
    for (let i = 0; i < 50; i++) {
      if ((await p.h.call('get-project-detail', { headers: bearer(token) })).status === 401) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail('the token still answers');
  };
  const prompt = () => page.getByRole('dialog', { name: 'Sign in as reader of “Sender project”, as a user?' });

  it('asks before replacing the session; Cancel keeps it', async () => {
    await page.goto(url('/'));
    await page.getByLabel('Project API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await page.getByText('Own project').first().waitFor();

    const before = await stored();
    const code = await p.h.consoleLinkCode(other.userId, { projectId: other.projectId });
    const exchanged = page.waitForResponse((r) => r.url().endsWith('/console/exchange-console-link'));
    await page.goto(url(`/sign-in#code=${code}`));
    const linkToken: string = (await (await exchanged).json()).accessToken;
    await prompt().waitFor();
    await prompt().getByText('You are signed in as admin of “Own project”, with the project API key.').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the prompt');
    assert.equal((await stored())?.signedInWith, 'apiKey', 'nothing replaced while it asks');
    await prompt().getByRole('button', { name: 'Cancel' }).click();
    await heading('Overview');
    await page.getByText('with the project API key').waitFor();
    assert.deepEqual(await stored(), before, 'the session kept');
    // The link was used up by its exchange: the token it gave, turned down, is revoked rather than left valid.
    const refused = await p.h.call('get-project-detail', { headers: { authorization: `Bearer ${linkToken}` } });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'INVALID_ACCESS_TOKEN');
    assert.equal((await p.h.call('get-project-detail', { headers: bearer(before.accessToken) })).status, 200);
  });

  it('Sign in switches to the link’s session', async () => {
    const keySession = await stored();
    const code = await p.h.consoleLinkCode(other.userId, { projectId: other.projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await prompt().getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await page.getByText('as a user').waitFor();
    await page.getByText('Sender project').first().waitFor();
    const session = await stored();
    assert.equal(session?.signedInWith, 'link');
    assert.equal(session?.projectId, other.projectId);
    // The session the tab left is over: its token is revoked, not only forgotten.
    await waitFor401(keySession.accessToken);
  });
});
