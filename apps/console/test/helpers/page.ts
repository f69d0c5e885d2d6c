import { AxeBuilder } from '@axe-core/playwright';
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

/** Every axe-core violation of the page as it is now, whatever its impact, as readable lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
  return results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}
