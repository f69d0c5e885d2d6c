// The platform a console test runs against: anvil with the Counter contract, the API (serving the built console) and
// a job worker on a fresh database, listening on loopback; and one Chromium.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHarness, type Harness } from '@mountain/api/testing';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { type Browser, launchBrowser } from '@mountain/testkit/browser.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';

export const CONSOLE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');

export interface Platform {
  h: Harness;
  anvil: AnvilHandle;
  counter: string;
  /** The API's origin; the console is at `${origin}/console/`. */
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

/** `transactions`: the harness's transaction settings (e.g. no re-send for want of a receipt). */
export async function startPlatform(
  options: { transactions?: NonNullable<Parameters<typeof createHarness>[0]>['transactions'] } = {},
): Promise<Platform> {
  const anvil = await startAnvil({ port: await freePort() });
  const counter = await deployCounter(anvil.url);
  const h = await createHarness({
    rpcUrls: { 1337: anvil.url },
    worker: true,
    consoleDir: CONSOLE_DIST,
    ...(options.transactions ? { transactions: options.transactions } : {}),
  });
  const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchBrowser();
  return {
    h,
    anvil,
    counter,
    origin,
    browser,
    async close() {
      await browser.close();
      await h.close();
      await anvil.stop();
    },
  };
}
