import { after, before } from 'node:test';
import { type AxeScript, serveAxe } from '@mountain/testkit/axe.ts';
import { type Browser, launchBrowser } from '@mountain/testkit/browser.ts';
import type { Page, Response } from 'playwright-core';
import { type StaticSite, serveBuild } from '../../scripts/staticServer.ts';

/**
 * The built site served on loopback and a browser, for the tests of one file: started before them, closed after,
 * with axe-core served beside them for the pages to load (the site sets no Content-Security-Policy).
 * Read its fields inside the tests (they are set once the `before` hook has run).
 */
export function builtSiteInBrowser(): { site: StaticSite; browser: Browser; axe: AxeScript } {
  const handles = {} as { site: StaticSite; browser: Browser; axe: AxeScript };
  before(async () => {
    handles.site = await serveBuild();
    handles.browser = await launchBrowser();
    handles.axe = await serveAxe();
  });
  after(async () => {
    await handles.browser?.close();
    await handles.site?.close();
    await handles.axe?.close();
  });
  return handles;
}

export interface OpenedPage {
  page: Page;
  response: Response | null;
  /** Console errors and uncaught exceptions seen since the page opened. */
  errors: string[];
}

/** Opens a path in a new tab and waits for the load event and a main heading, never for network idle. */
export async function openPage(
  browser: Browser,
  origin: string,
  path: string,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<OpenedPage> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    // A failed resource names itself only in the message's location.
    if (message.type() === 'error') {
      const where = message.location().url;
      errors.push(
        /^Failed to load resource/.test(message.text()) && where ? `${message.text()}: ${where}` : message.text(),
      );
    }
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const pending = new Set<string>();
  page.on('request', (request) => pending.add(request.url()));
  page.on('requestfinished', (request) => pending.delete(request.url()));
  page.on('requestfailed', (request) => pending.delete(request.url()));
  if (options.viewport) await page.setViewportSize(options.viewport);
  if (options.colorScheme) await page.emulateMedia({ colorScheme: options.colorScheme });
  const response = await page.goto(`${origin}${path}`, { waitUntil: 'load', timeout: 60_000 }).catch((error: Error) => {
    throw new Error(`${path} did not load; requests still pending: ${[...pending].join(', ') || 'none'}`, {
      cause: error,
    });
  });
  await page.locator('h1').first().waitFor({ state: 'visible' });
  return { page, response, errors };
}

/**
 * Moves the pointer over the page, as a person does, and resolves once React has hydrated it. A page loads its
 * runtime on the reader's first interaction (plugins/deferred-runtime), so a page nobody touches is never hydrated.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.mouse.move(10, 10);
  await page.mouse.move(20, 20);
  await hydrated(page);
}

/**
 * Resolves once React has hydrated the page, without touching it: the root holds React's container and the theme
 * has marked the document hydrated (an effect that runs after the first render, so the head is settled too).
 */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const root = document.getElementById('__docusaurus') as (HTMLElement & Record<string, unknown>) | null;
    return (
      Boolean(root && Object.keys(root).some((key) => key.startsWith('__reactContainer'))) &&
      document.documentElement.dataset.hasHydrated === 'true'
    );
  });
}

/** Relative luminance of a CSS rgb() colour, 0 (black) to 1 (white). */
export function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}
