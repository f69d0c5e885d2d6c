// Lighthouse (mobile: its default emulation and simulated throttling) on one signed-in view, in a fresh Chromium
// each time (cold cache, as apps/docs/bench/site.ts audits the docs site): the four category scores, LCP, TBT and
// the JavaScript bytes the view transferred, and the audits that cost points.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { signedInTab } from './browser.ts';

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

export interface Audit {
  scores: Record<(typeof CATEGORIES)[number], number>;
  lcpMs: number;
  tbtMs: number;
  fcpMs: number;
  jsBytes: number;
  /** Lighthouse's measure of the CPU it had (lhr.environment.benchmarkIndex): lower when other work shares it. */
  benchmarkIndex: number;
  /** Audits below a full score that weigh in performance or accessibility, with what Lighthouse says of them. */
  losses: string[];
}

export async function audit(url: string, apiKey: string, origin: string, reportFile?: string): Promise<Audit> {
  const tab = await signedInTab(origin, apiKey);
  try {
    const result = await lighthouse(
      url,
      {
        output: 'json',
        logLevel: 'error',
        onlyCategories: [...CATEGORIES],
        formFactor: 'mobile',
        maxWaitForLoad: 60_000,
      },
      undefined,
      tab.page,
    );
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
    if (reportFile) writeFileSync(reportFile, JSON.stringify(lhr));
    // A view that sent the tab to the sign-in page was not audited signed in.
    if (!lhr.finalDisplayedUrl.startsWith(url.split('?')[0] as string) || /\/sign-in/.test(lhr.finalDisplayedUrl))
      throw new Error(`${url} ended on ${lhr.finalDisplayedUrl}`);
    const scores = Object.fromEntries(
      CATEGORIES.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]),
    ) as Audit['scores'];
    const items =
      (lhr.audits['network-requests']?.details as { items?: { resourceType?: string; transferSize?: number }[] })
        ?.items ?? [];
    const losses: string[] = [];
    for (const category of ['performance', 'accessibility'] as const) {
      for (const ref of lhr.categories[category]?.auditRefs ?? []) {
        const a = lhr.audits[ref.id];
        if (!a || ref.weight === 0 || a.score === null || a.score >= 1) continue;
        losses.push(`${category}: ${a.id} ${a.displayValue ?? ''} (score ${a.score}, weight ${ref.weight})`.trim());
      }
    }
    return {
      scores,
      lcpMs: lhr.audits['largest-contentful-paint']?.numericValue ?? Number.NaN,
      tbtMs: lhr.audits['total-blocking-time']?.numericValue ?? Number.NaN,
      fcpMs: lhr.audits['first-contentful-paint']?.numericValue ?? Number.NaN,
      benchmarkIndex: lhr.environment.benchmarkIndex,
      jsBytes: items.filter((i) => i.resourceType === 'Script').reduce((sum, i) => sum + (i.transferSize ?? 0), 0),
      losses,
    };
  } finally {
    await tab.close();
  }
}

export const reportPath = (dir: string | undefined, view: string, run: number) =>
  dir ? path.join(dir, `${view.replace(/\W+/g, '-').toLowerCase()}-${run + 1}.json`) : undefined;
