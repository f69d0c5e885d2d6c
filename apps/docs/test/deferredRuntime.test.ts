// The runtime a page loads on the reader's first interaction (plugins/deferred-runtime), in a real browser: nothing
// before it (diagrams included), a control pressed or a search pasted early still acts, and the search results page,
// found in the browser, asks for it at once. Needs `npm run build -w @mountain/docs` first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { builtSiteInBrowser, hydrated, openPage, waitForHydration } from './helpers/page.ts';

const docs = builtSiteInBrowser();

describe('reading needs no script', () => {
  test('a doc page is whole before its runtime, which loads on the first interaction and hydrates the page', async () => {
    const { page, errors } = await openPage(docs.browser, docs.site.origin, '/docs/intro');
    const bundles: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/assets/js/')) bundles.push(request.url());
    });
    try {
      await page.waitForTimeout(500);
      assert.deepEqual(bundles, [], 'no script bundle before the reader interacts');
      assert.equal(await page.locator('html').getAttribute('data-has-hydrated'), 'false');
      assert.ok(await page.locator('nav[aria-label="Docs sidebar"] a.menu__link').first().isVisible());
      assert.ok(await page.locator('article p').first().isVisible());
      // A finger on the screen may be scrolling: that is reading, and loads nothing.
      await page.evaluate(() => {
        document.body.dispatchEvent(new PointerEvent('pointerdown', { pointerType: 'touch', bubbles: true }));
        window.scrollBy(0, 400);
      });
      await page.waitForTimeout(300);
      assert.deepEqual(bundles, [], 'no script bundle for a touch or a scroll');
      await waitForHydration(page);
      assert.ok(
        bundles.some((url) => /\/main\.[0-9a-f]+\.js$/.test(url)),
        bundles.join(', '),
      );
      assert.equal(await page.locator('html').getAttribute('data-has-hydrated'), 'true');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a control pressed before the runtime is ready acts once it is', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/api-reference', {
      viewport: { width: 390, height: 844 },
    });
    try {
      const toggle = page.getByRole('button', { name: 'Operations' });
      assert.equal(await page.locator('html').getAttribute('data-has-hydrated'), 'false');
      await toggle.click();
      await page.locator('#api-reference-menu').waitFor({ state: 'visible' });
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    } finally {
      await page.close();
    }
  });

  test('a search pasted before the runtime is ready shows its results once it is', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/docs/intro');
    try {
      assert.equal(await page.locator('html').getAttribute('data-has-hydrated'), 'false');
      const box = page.locator('input[aria-label="Search"]').first();
      // Focus starts the runtime; the text arrives at once, before the search box is listening.
      await box.focus();
      await box.fill('idempotency');
      await page
        .getByRole('option')
        .filter({ hasText: /idempotency/i })
        .first()
        .waitFor({ timeout: 15_000 });
      assert.equal(await box.inputValue(), 'idempotency');
    } finally {
      await page.close();
    }
  });

  test('the diagrams are drawn in the HTML, their text inside their boxes, with no script', async () => {
    const lifecyclePage = '/docs/services/mountain-transactions/transaction-lifecycle';
    for (const path of [
      lifecyclePage,
      '/docs/services/mountain-events/implementation',
      '/docs/services/mountain-events/overview',
      '/docs/services/mountain-smart-contracts/overview',
    ]) {
      const { page } = await openPage(docs.browser, docs.site.origin, path);
      try {
        const diagram = page.locator('section[aria-label^="Diagram:"] svg[role="img"]');
        await diagram.scrollIntoViewIfNeeded();
        assert.ok(await diagram.isVisible(), `${path}: the diagram is visible`);
        assert.equal(await page.locator('html').getAttribute('data-has-hydrated'), 'false', `${path}: no runtime`);
        // What a reader sees: each box's text within its box, and every label within the drawing.
        const drawn = await diagram.evaluate((svg: SVGSVGElement) => {
          const drawing = svg.getBoundingClientRect().toJSON() as DOMRect;
          return [
            ...[...svg.querySelectorAll('g > rect:last-of-type')].map((rect) => ({
              text: rect.nextElementSibling?.textContent ?? '',
              inner: (rect.nextElementSibling as SVGTextElement).getBoundingClientRect().toJSON() as DOMRect,
              outer: rect.getBoundingClientRect().toJSON() as DOMRect,
            })),
            ...[...svg.querySelectorAll('text')].map((text) => ({
              text: text.textContent ?? '',
              inner: text.getBoundingClientRect().toJSON() as DOMRect,
              outer: drawing,
            })),
          ];
        });
        const inside = ({ inner, outer }: { inner: DOMRect; outer: DOMRect }) =>
          inner.left >= outer.left &&
          inner.right <= outer.right &&
          inner.top >= outer.top &&
          inner.bottom <= outer.bottom;
        const misfits = drawn.filter((t) => !inside(t)).map((t) => t.text);
        assert.deepEqual(misfits, [], `${path}: text outside its box or the drawing`);
        if (path !== lifecyclePage) continue;
        // Named by its title alone; the arrows in words are its description.
        const drawing = page.getByRole('img', {
          name: 'A transaction’s statuses and what moves it between them',
          exact: true,
        });
        assert.ok(await drawing.isVisible());
        assert.match((await drawing.getAttribute('aria-describedby')) ?? '', /-desc$/);
        const figure = page.locator('figure:has(section[aria-label^="Diagram:"])');
        const boxes = await figure.locator('svg g rect + text').allTextContents();
        assert.deepEqual(boxes.sort(), [
          'broadcast-failed',
          'broadcasted',
          'cancelled',
          'cancelling',
          'created',
          'monitor-failed',
          'processing',
          'reverted',
          'succeeded',
        ]);
        // The arrows' numbers, and the list under the drawing that says each one in words.
        const numbers = await figure.locator('svg > g > circle + text').allTextContents();
        const legend = await figure.locator('figcaption li').allTextContents();
        // One per arrow of the generated diagram (one per (from, to) of the state machine's table).
        const arrows = readFileSync(`${REPO_ROOT}/apps/docs/docs/_generated/_transaction-lifecycle.mdx`, 'utf8').match(
          /^ {4}\{ from: /gm,
        );
        assert.ok(arrows && arrows.length > 10);
        assert.equal(legend.length, arrows.length);
        assert.deepEqual(
          numbers,
          legend.map((_, i) => String(i + 1)),
        );
        assert.equal(legend[0], 'start → created: execute-transaction (simulation passed)');
        assert.ok(legend.includes('succeeded → broadcasted: a reorg removed its block'), legend.join('\n'));
      } finally {
        await page.close();
      }
    }
  });

  test('the search results page loads its runtime at once, for the results are found in the browser', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/search?q=webhook');
    try {
      await hydrated(page);
      await page
        .locator('a[href^="/docs/"]')
        .filter({ hasText: /webhook/i })
        .first()
        .waitFor({ timeout: 15_000 });
    } finally {
      await page.close();
    }
  });
});
