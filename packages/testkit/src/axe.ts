// axe-core on a page of a test's browser, run in the page itself. @axe-core/playwright's analyze() does the same work
// and then opens a blank page of the context to finish the run there, injecting axe-core (560 KB) a second time:
// 1.2–6.6 s a page against 0.5–2.8 s this way, with the same violations (measured on the docs site).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const IMPACTS = ['minor', 'moderate', 'serious', 'critical'] as const;
export type Impact = (typeof IMPACTS)[number];

/**
 * The violations of axe-core's default rules on the page as it is now, of impact `atLeast` or worse, as readable
 * lines (rule, impact, help, the elements). A rule whose own impact is below `atLeast` is not run: axe gives every
 * violation of a rule that states an impact that impact, so such a rule cannot bring one that counts. A page with
 * frames is refused: axe would have to run in each of them too.
 */
export async function axeViolations(page: Page, atLeast: Impact = 'minor'): Promise<string[]> {
  const frames = page.frames().length - 1;
  if (frames > 0) throw new Error(`axeViolations: the page has ${frames} frame(s), which this check does not enter`);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
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
