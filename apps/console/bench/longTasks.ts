// Paging through the 10,000 transactions signed in, as a person would (next, previous, a status filter), with a
// PerformanceObserver for 'longtask' entries (main-thread tasks over 50 ms) in the page from its first document on.
// Each step waits until its page of rows is on screen ("Page n of N (T transactions)"), then two frames.
import type { Page } from 'puppeteer-core';
import { signedInTab } from './browser.ts';

export interface Listing {
  /** '' for every status. */
  status: string;
  totalPage: number;
  totalItems: number;
}

export interface PagingResult {
  steps: { step: string; ms: number }[];
  /** Long tasks (ms) while the Transactions view first loaded, and while paging. */
  loadTasks: number[];
  pagingTasks: number[];
  /** The longest animation frame (long-animation-frame entries) while paging, and what took its time. */
  longestFrameMs: number;
  longestFrame: string;
}

/**
 * The observers, as source text: a function handed to puppeteer would carry tsx's helpers (`__name`), which the page
 * does not have, and fail there without a word.
 */
const OBSERVERS = `
  window.__benchTasks = [];
  window.__benchFrames = [];
  function keep(into) {
    return function (list) {
      for (const e of list.getEntries()) {
        const entry = { start: e.startTime, duration: e.duration, parts: '' };
        if (e.scripts) {
          const scripts = e.scripts.map(function (s) {
            return Math.round(s.duration) + ' ms ' + s.invokerType + ' ' + (s.sourceFunctionName || s.invoker || '') +
              ' (' + (s.sourceURL || '').split('/').pop() + ')';
          });
          entry.parts = scripts.join(', ') + '; style and layout ' +
            Math.round(e.startTime + e.duration - (e.styleAndLayoutStart || e.startTime + e.duration)) + ' ms';
        }
        into.push(entry);
      }
    };
  }
  new PerformanceObserver(keep(window.__benchTasks)).observe({ type: 'longtask', buffered: true });
  if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame'))
    new PerformanceObserver(keep(window.__benchFrames)).observe({ type: 'long-animation-frame', buffered: true });
`;

declare global {
  interface Window {
    __benchTasks: { start: number; duration: number }[];
    __benchFrames: { start: number; duration: number; parts: string }[];
  }
}

export async function pageThroughTransactions(
  origin: string,
  apiKey: string,
  listings: Listing[],
  cpuSlowdown: number,
): Promise<PagingResult> {
  const tab = await signedInTab(origin, apiKey);
  try {
    const { page } = tab;
    await page.setViewport({ width: 1280, height: 800 });
    if (cpuSlowdown > 1) await page.emulateCPUThrottling(cpuSlowdown);
    await page.evaluateOnNewDocument(OBSERVERS);
    const all = listingOf(listings, '');
    const steps: PagingResult['steps'] = [];
    await page.goto(`${origin}/console/transactions`, { waitUntil: 'load', timeout: 30_000 });
    await shown(page, 1, all);
    await settle(page, 500);
    const mark = await page.evaluate(() => performance.now());

    const step = async (name: string, act: () => Promise<unknown>, pageNumber: number, listing: Listing) => {
      const t0 = performance.now();
      await act();
      await shown(page, pageNumber, listing);
      steps.push({ step: name, ms: performance.now() - t0 });
    };
    const next = () => page.click('nav[aria-label="Pages"] button:last-of-type');
    const previous = () => page.click('nav[aria-label="Pages"] button:first-of-type');
    const filter = (status: string) => page.select('#status-filter', status);

    for (let n = 2; n <= 6; n++) await step(`next → ${n}`, next, n, all);
    for (let n = 5; n >= 4; n--) await step(`previous → ${n}`, previous, n, all);
    const reverted = listingOf(listings, 'reverted');
    await step('status reverted', () => filter('reverted'), 1, reverted);
    for (let n = 2; n <= 3; n++) await step(`reverted next → ${n}`, next, n, reverted);
    await step('reverted previous → 2', previous, 2, reverted);
    const failed = listingOf(listings, 'failed');
    await step('status failed', () => filter('failed'), 1, failed);
    await step('failed next → 2', next, 2, failed);
    const succeeded = listingOf(listings, 'succeeded');
    await step('status succeeded', () => filter('succeeded'), 1, succeeded);
    for (let n = 2; n <= 4; n++) await step(`succeeded next → ${n}`, next, n, succeeded);
    await step('all statuses', () => filter(''), 1, all);
    await step('next → 2', next, 2, all);
    await settle(page, 500);

    // The observer's own check: a task of 80 ms made on purpose, after the paging, must be among what it saw.
    const end = await page.evaluate(() => performance.now());
    // In a task of the page's own (one that DevTools runs is not a long task to it).
    await page.evaluate(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            const until = performance.now() + 80;
            while (performance.now() < until) {}
            resolve();
          }),
        ),
    );
    await settle(page, 200);
    const { tasks, frames } = await page.evaluate(() => ({ tasks: window.__benchTasks, frames: window.__benchFrames }));
    if (!tasks.some((t) => t.start >= end && t.duration >= 80))
      throw new Error('the longtask observer did not see the 80 ms task made to check it');
    const longest = frames.filter((f) => f.start >= mark && f.start < end).sort((a, b) => b.duration - a.duration)[0];
    return {
      steps,
      loadTasks: tasks.filter((t) => t.start < mark).map((t) => t.duration),
      pagingTasks: tasks.filter((t) => t.start >= mark && t.start < end).map((t) => t.duration),
      longestFrameMs: longest?.duration ?? 0,
      longestFrame: longest?.parts ?? '',
    };
  } finally {
    await tab.close();
  }
}

function listingOf(listings: Listing[], status: string): Listing {
  const found = listings.find((l) => l.status === status);
  if (!found) throw new Error(`no listing for status "${status}"`);
  return found;
}

/** Waits until the pager says the page is on screen, i.e. its rows came and were rendered. */
async function shown(page: Page, pageNumber: number, listing: Listing): Promise<void> {
  const text = `Page ${pageNumber} of ${listing.totalPage} (${listing.totalItems} transactions)`;
  await page.waitForFunction(
    (expected) => document.querySelector('nav[aria-label="Pages"] span')?.textContent === expected,
    { timeout: 15_000, polling: 'mutation' },
    text,
  );
  await settle(page, 0);
}

/** Two animation frames (the page painted what it rendered), then `ms` more. */
async function settle(page: Page, ms: number): Promise<void> {
  await page.evaluate(
    (wait) =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => resolve(), wait))),
      ),
    ms,
  );
}
