import assert from 'node:assert/strict';
import { axeViolations } from '@mountain/testkit/axe.ts';
import type { Browser } from '@mountain/testkit/browser.ts';
import type { Page } from 'playwright-core';

/** A fresh tab (its own session storage), recording console errors: a CSP refusal is one. */
export async function newTab(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} ${message.location().url}`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

/**
 * What every console test does with its tab: the URL of a console path, waiting for a view's heading, and axe on
 * the view. Given getters, since the platform and the tab are made in the suite's `before`.
 */
export function consoleView(origin: () => string, page: () => Page) {
  return {
    url: (path: string) => `${origin()}/console${path}`,
    heading: (name: string) => page().getByRole('heading', { level: 1, name }).waitFor(),
    axeClean: async (view: string) => assert.deepEqual(await axeViolations(page()), [], `axe on ${view}`),
    /** Signs in as a person does, with a project API key on the sign-in page, and waits for the Overview. */
    async signInWithKey(key: string) {
      await page().goto(`${origin()}/console/`);
      await page().getByLabel('Project API key').fill(key);
      await page().getByRole('button', { name: 'Sign in' }).click();
      await page().getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    },
  };
}
