// axe-core on a page of a test's browser, run in the page itself. @axe-core/playwright's analyze() does the same work
// and then opens a blank page of the context to finish the run there, injecting axe-core (560 KB) a second time:
// 1.2–6.6 s a page against 0.5–2.8 s this way, with the same violations (measured on the docs site).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const IMPACTS = ['minor', 'moderate', 'serious', 'critical'] as const;
export type Impact = (typeof IMPACTS)[number];

/** axe-core at an address on loopback, for pages to load it from (`axeViolations`' `from`). */
export interface AxeScript {
  readonly url: string;
  /** How many times a browser asked for it. */
  readonly requests: number;
  close(): Promise<void>;
}

/**
 * Serves axe-core on loopback, cacheable for an hour. A page that loads it from there takes it, already compiled, from
 * the browser's cache after the first few pages; handing the source to each page instead costs about 0.4 s (560 KB
 * through the DevTools protocol, then compiled). Only for pages whose Content-Security-Policy allows scripts from
 * another origin: one that refuses it would log the refusal as an error.
 */
export async function serveAxe(): Promise<AxeScript> {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=3600',
    });
    response.end(AXE_SOURCE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/axe.min.js`,
    get requests() {
      return requests;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The violations of axe-core's default rules on the page as it is now, of impact `atLeast` or worse, as readable
 * lines (rule, impact, help, the elements). A rule whose own impact is below `atLeast` is not run: axe gives every
 * violation of a rule that states an impact that impact, so such a rule cannot bring one that counts. A page with
 * frames is refused: axe would have to run in each of them too. `from`: load axe-core from `serveAxe`'s address.
 */
export async function axeViolations(
  page: Page,
  atLeast: Impact = 'minor',
  options: { from?: AxeScript } = {},
): Promise<string[]> {
  const frames = page.frames().length - 1;
  if (frames > 0) throw new Error(`axeViolations: the page has ${frames} frame(s), which this check does not enter`);
  if (!(await page.evaluate(() => 'axe' in window))) {
    if (options.from) await page.addScriptTag({ url: options.from.url });
    else await page.evaluate(AXE_SOURCE);
  }
  return page.evaluate(
    async ({ impacts, atLeast }) => {
      interface Axe {
        _audit: { rules: { id: string; impact?: string }[] };
        run(
          context: Document,
          options: object,
        ): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
      }
      const axe = (window as unknown as { axe: Axe }).axe;
      // No named functions in here: a transform that names them (tsx's) would leave a helper the page lacks.
      const least = impacts.indexOf(atLeast);
      const rules: Record<string, { enabled: false }> = {};
      for (const rule of axe._audit.rules) {
        if (rule.impact !== undefined && impacts.indexOf(rule.impact) < least) rules[rule.id] = { enabled: false };
      }
      const { violations } = await axe.run(document, { resultTypes: ['violations'], rules });
      return violations
        .filter((v) => impacts.indexOf(v.impact) >= least)
        .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    },
    { impacts: [...IMPACTS] as string[], atLeast: atLeast as string },
  );
}
