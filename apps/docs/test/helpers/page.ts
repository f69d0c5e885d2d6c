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

/** Each watched tab's console errors and uncaught exceptions since its last `visit`, and its requests in flight. */
const watched = new WeakMap<Page, { errors: string[]; pending: Set<string> }>();

function watch(page: Page): void {
  const state = { errors: [] as string[], pending: new Set<string>() };
  watched.set(page, state);
  page.on('console', (message) => {
    // A failed resource names itself only in the message's location.
    if (message.type() === 'error') {
      const where = message.location().url;
      state.errors.push(
        /^Failed to load resource/.test(message.text()) && where ? `${message.text()}: ${where}` : message.text(),
      );
    }
  });
  page.on('pageerror', (error) => state.errors.push(error.message));
  page.on('request', (request) => state.pending.add(request.url()));
  page.on('requestfinished', (request) => state.pending.delete(request.url()));
  page.on('requestfailed', (request) => state.pending.delete(request.url()));
}

/** Opens a path in a new tab and waits for the load event and a main heading, never for network idle. */
export async function openPage(
  browser: Browser,
  origin: string,
  path: string,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<OpenedPage> {
  const page = await browser.context.newPage();
  watch(page);
  if (options.viewport) await page.setViewportSize(options.viewport);
  if (options.colorScheme) await page.emulateMedia({ colorScheme: options.colorScheme });
  return visit(page, origin, path);
}

/**
 * Loads a path in a tab opened by `openPage` or `tabs`, as a reader types an address into it: a new document, whose
 * errors alone the answer holds. Waits for the load event and a main heading.
 */
export async function visit(page: Page, origin: string, path: string): Promise<OpenedPage> {
  const state = watched.get(page);
  if (!state) throw new Error('visit: a tab from openPage or tabs, whose errors are watched');
  const errors: string[] = [];
  state.errors = errors;
  state.pending.clear();
  const response = await page.goto(`${origin}${path}`, { waitUntil: 'load', timeout: 60_000 }).catch((error: Error) => {
    throw new Error(`${path} did not load; requests still pending: ${[...state.pending].join(', ') || 'none'}`, {
      cause: error,
    });
  });
  await page.locator('h1').first().waitFor({ state: 'visible' });
  return { page, response, errors };
}

/**
 * Tabs for tests that run side by side, each taken by one test at a time and kept from one page to the next, as a
 * reader's tab is: its renderer and caches stay warm, which costs the browser a third less than a new tab a page.
 */
export function tabs(browser: () => Browser): { use<T>(work: (tab: Page) => Promise<T>): Promise<T> } {
  const idle: Page[] = [];
  return {
    async use(work) {
      let tab = idle.pop();
      if (!tab) {
        tab = await browser().context.newPage();
        watch(tab);
      }
      try {
        return await work(tab);
      } finally {
        idle.push(tab);
      }
    },
  };
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
