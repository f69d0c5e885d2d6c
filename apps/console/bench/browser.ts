// Debian's Chromium, started by chrome-launcher in a fresh profile and driven over CDP by puppeteer-core, in a tab
// that is signed in before the console's first script runs: the session is written into sessionStorage at the
// start of every document (session/session.ts keeps it there, under this key), as a reload of a signed-in tab has it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@mountain/testkit/browser.ts';
import * as chromeLauncher from 'chrome-launcher';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** session/session.ts's STORAGE_KEY. */
export const SESSION_KEY = 'mountain-console-session';

export interface SignedInTab {
  page: Page;
  close(): Promise<void>;
}

/** Every Chromium started here and not closed yet: the bench's cleanup closes them when it is interrupted. */
const open = new Set<SignedInTab>();

export async function closeAllTabs(): Promise<void> {
  for (const tab of [...open]) await tab.close();
}

/** One Chromium with one tab signed in with `apiKey` on every page of `origin`; close() kills it by its PID. */
export async function signedInTab(origin: string, apiKey: string): Promise<SignedInTab> {
  const profile = mkdtempSync(path.join(tmpdir(), 'mountain-console-bench-'));
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: CHROMIUM_ARGS,
    userDataDir: profile,
    // Its own handler would kill Chromium and exit on Ctrl-C before the bench stops what else it started.
    handleSIGINT: false,
  });
  let browser: Browser | undefined;
  const stop = async () => {
    open.delete(handle);
    await browser?.disconnect().catch(() => {});
    chrome.kill();
    rmSync(profile, { recursive: true, force: true });
  };
  const handle = { close: stop } as SignedInTab;
  open.add(handle);
  try {
    browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
    handle.page = await browser.newPage();
    // What the sign-in page keeps: a token exchanged for the key (the console never stores the key itself).
    const exchanged = await fetch(`${origin}/public-api/v3/auth/exchange-api-key`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
    });
    if (exchanged.status !== 201) throw new Error(`exchange-api-key answered ${exchanged.status}`);
    const token = (await exchanged.json()) as { accessToken: string; projectId: number; sessionEndsAt: string };
    const session = {
      signedInWith: 'apiKey',
      accessToken: token.accessToken,
      projectId: token.projectId,
      // Not renewed: a bench run is shorter than the token's 15 minutes, and the tab need not forget it before.
      expiresAt: token.sessionEndsAt,
      sessionEndsAt: token.sessionEndsAt,
      renewable: false,
    };
    await handle.page.evaluateOnNewDocument(
      (key, value, signedInOrigin) => {
        if (location.origin === signedInOrigin) sessionStorage.setItem(key, value);
      },
      SESSION_KEY,
      JSON.stringify(session),
      origin,
    );
    return handle;
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The text of the view's first heading once the console has rendered it (not its loading state). */
export async function viewHeading(page: Page, url: string): Promise<string> {
  await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  const heading = await page.waitForSelector('h1', { timeout: 30_000 });
  return ((await heading?.evaluate((h) => h.textContent)) ?? '').trim();
}
