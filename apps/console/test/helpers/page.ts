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
