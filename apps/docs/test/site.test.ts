// The built documentation site in a real browser: routes and titles, URL handling, dark mode, anchors,
// navigation, the API reference and accessibility (the runtime loaded on demand: deferredRuntime.test.ts).
// Needs `npm run build -w @mountain/docs` first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { axeViolations } from '@mountain/testkit/axe.ts';
import { OPERATION_IDS, ROUTES, SIDEBARS, SITE_TITLE } from './helpers/expectations.ts';
import { builtSiteInBrowser, luminance, openPage, tabs, visit, waitForHydration } from './helpers/page.ts';

const docs = builtSiteInBrowser();

const SIDEBAR_OF = new Map(
  Object.entries(SIDEBARS).flatMap(([name, docs]) => docs.map((doc) => [doc.path, name as keyof typeof SIDEBARS])),
);

// Pages are independent: three at a time keep the run short without starving the machine, each in one of three tabs
// that go from page to page as a reader's does.
const readers = tabs(() => docs.browser);
describe('every route', { concurrency: 3 }, () => {
  for (const route of ROUTES) {
    test(`${route.path} shows "${route.h1}", its title, anchors, its sidebar and no serious axe violation`, () =>
      readers.use(async (tab) => {
        const { page, response, errors } = await visit(tab, docs.site.origin, route.path);
        assert.equal(response?.status(), 200);
        if (route.finalPath) await page.waitForURL(`${docs.site.origin}${route.finalPath}`);
        await waitForHydration(page);
        assert.match(((await page.locator('h1').first().textContent()) ?? '').trim(), asPattern(route.h1));
        // The head manager may show the site title for a moment while hydrating: wait for the title to settle.
        await page
          .waitForFunction((expected) => document.title === expected, route.title, { timeout: 10_000 })
          .catch(() => {});
        assert.equal(await page.title(), route.title);

        const anchors = await page.$$eval('h2[id], h3[id]', (headings) =>
          headings.map((h) => ({
            text: (h.textContent ?? '').replace(/\u200b/g, '').trim(),
            link: h.querySelector(':scope > a.hash-link')?.getAttribute('title') ?? null,
            href: h.querySelector(':scope > a.hash-link')?.getAttribute('href') ?? null,
            id: h.id,
          })),
        );
        for (const anchor of anchors) {
          assert.equal(anchor.link, `Direct link to ${anchor.text}`, `anchor of heading "${anchor.text}"`);
          assert.equal(anchor.href, `#${anchor.id}`);
        }

        const sidebar = SIDEBAR_OF.get(route.finalPath ?? route.path);
        if (sidebar) {
          const links = await page.$$eval(
            'nav[aria-label="Docs sidebar"] a.menu__link:not(.menu__link--sublist)',
            (as) => as.map((a) => a.getAttribute('href')),
          );
          assert.deepEqual(
            links,
            SIDEBARS[sidebar].map((doc) => doc.path),
            `${sidebar} on ${route.path}`,
          );
        }

        assert.deepEqual(await axeViolations(page, 'serious', { from: docs.axe }), []);
        assert.deepEqual(errors, [], 'console errors');
      }));
  }

  test('an unknown route shows the not-found page with status 404', async () => {
    const { page, response } = await openPage(docs.browser, docs.site.origin, '/no/such/page');
    try {
      assert.equal(response?.status(), 404);
      assert.equal(((await page.locator('h1').textContent()) ?? '').trim(), 'Page Not Found');
      assert.equal(await page.title(), `Page Not Found | ${SITE_TITLE}`);
      await page.getByRole('link', { name: 'API Reference' }).last().waitFor();
      assert.deepEqual(await axeViolations(page, 'serious', { from: docs.axe }), []);
    } finally {
      await page.close();
    }
  });
});

describe('addresses', () => {
  for (const [path, clean, h1] of [
    ['/docs/intro/index.html', '/docs/intro', 'Introduction'],
    ['/docs/authentication.html', '/docs/authentication', 'Authentication'],
    ['/api-reference/index.html', '/api-reference', /^Public API for Developers/],
  ] as const) {
    test(`${path} renders the page at ${clean}`, async () => {
      const { page, errors } = await openPage(docs.browser, docs.site.origin, path);
      try {
        await page.waitForURL(`${docs.site.origin}${clean}`);
        assert.match(((await page.locator('h1').first().textContent()) ?? '').trim(), asPattern(h1));
        assert.notEqual(await page.title(), `Page Not Found | ${SITE_TITLE}`);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  }

  test('llms.txt lists every page', async () => {
    const response = await fetch(`${docs.site.origin}/llms.txt`);
    assert.equal(response.status, 200);
    const text = await response.text();
    assert.match(text, /^# Mountain\n/);
    for (const route of ROUTES.filter((r) => !r.finalPath)) {
      assert.ok(text.includes(`https://docs.mountain.dev${route.path === '/' ? '/' : route.path})`), route.path);
    }
  });

  test('/favicon.ico exists, for browsers that ask for it whatever the page declares', async () => {
    const response = await fetch(`${docs.site.origin}/favicon.ico`);
    assert.equal(response.status, 200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], 'an ICO header');
  });
});

describe('dark mode only', () => {
  test('is dark even when the browser prefers light or a light theme was stored, with no colour toggle', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/docs/intro', { colorScheme: 'light' });
    try {
      await waitForHydration(page);
      await page.evaluate(() => localStorage.setItem('theme', 'light'));
      await page.reload({ waitUntil: 'load' });
      await waitForHydration(page);
      assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.ok(luminance(background) < 0.05, `background ${background} is dark`);
      const toggles = page.locator(
        'button[title*="dark mode" i], button[aria-label*="dark mode" i], [class*="colorModeToggle"]',
      );
      assert.equal(await toggles.count(), 0);
    } finally {
      await page.close();
    }
  });

  test('stays dark when another tab of the site stores a light theme', async () => {
    const { page: reader } = await openPage(docs.browser, docs.site.origin, '/docs/intro');
    const { page: other } = await openPage(docs.browser, docs.site.origin, '/docs/authentication');
    try {
      await waitForHydration(reader);
      await waitForHydration(other);
      // Storage events reach a tab in the order of the writes: once the probe's has, the theme's has too.
      await reader.evaluate(() => {
        const tab = window as unknown as { probed: Promise<void> };
        tab.probed = new Promise((resolve) =>
          window.addEventListener('storage', (event) => event.key === 'probe' && resolve()),
        );
      });
      await other.evaluate(() => {
        localStorage.setItem('theme', 'light');
        localStorage.setItem('probe', String(Date.now()));
      });
      await reader.evaluate(() => (window as unknown as { probed: Promise<void> }).probed);
      assert.equal(await reader.getAttribute('html', 'data-theme'), 'dark');
      const background = await reader.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.ok(luminance(background) < 0.05, `background ${background} is dark`);
    } finally {
      await other.evaluate(() => localStorage.clear());
      await reader.close();
      await other.close();
    }
  });

  test('the server-rendered HTML is dark before any script runs', async () => {
    for (const path of ['/', '/docs/intro', '/api-reference']) {
      const html = await (await fetch(`${docs.site.origin}${path}`)).text();
      assert.match(html, /<html[^>]*\sdata-theme="?dark"?[\s>]/, `${path} <html data-theme>`);
    }
    const page = await docs.browser.context.newPage();
    try {
      const cdp = await docs.browser.context.newCDPSession(page);
      await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
      await page.goto(`${docs.site.origin}/api-reference`, { waitUntil: 'load' });
      assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.ok(luminance(background) < 0.05, `background ${background} is dark without scripts`);
      assert.equal((await page.locator('#api-reference-menu').boundingBox())?.width, 300);
    } finally {
      await page.close();
    }
  });
});

describe('navigation', () => {
  test('the navbar holds Documentation, Services, SDKs and Tools, API Reference, each leading to its page', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/');
    try {
      await waitForHydration(page);
      const labels = await page.$$eval('.navbar__items:not(.navbar__items--right) a.navbar__link', (as) =>
        as.map((a) => (a.textContent ?? '').trim()),
      );
      assert.deepEqual(labels, ['Documentation', 'Services', 'SDKs and Tools', 'API Reference']);
      for (const [label, path, h1] of [
        ['Documentation', '/docs/intro', 'Introduction'],
        ['Services', '/docs/services/mountain-events/overview', 'Mountain Events'],
        ['SDKs and Tools', '/docs/sdks-tools/public-api-client/overview', 'Public API client'],
        ['API Reference', '/api-reference', 'Public API for Developers'],
      ] as const) {
        await page.locator('.navbar').getByRole('link', { name: label, exact: true }).click();
        await page.waitForURL(`${docs.site.origin}${path}`);
        await page.locator('h1', { hasText: h1 }).waitFor();
      }
    } finally {
      await page.close();
    }
  });

  test('the footer leads to Getting Started, the API Reference and support', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/docs/intro');
    try {
      const footer = page.locator('footer');
      assert.equal(
        await footer.getByRole('link', { name: 'Getting Started' }).getAttribute('href'),
        '/docs/getting-started/account-setup',
      );
      assert.equal(await footer.getByRole('link', { name: 'API Reference' }).getAttribute('href'), '/api-reference');
      assert.equal(
        await footer.getByRole('link', { name: /support/i }).getAttribute('href'),
        'mailto:support@mountain.dev',
      );
      await waitForHydration(page);
      await footer.getByRole('link', { name: 'Getting Started' }).click();
      await page.locator('h1', { hasText: 'Account setup' }).waitFor();
    } finally {
      await page.close();
    }
  });

  test('offline search finds docs pages from the local index', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/docs/intro');
    const hosts = new Set<string>();
    page.on('request', (request) => hosts.add(new URL(request.url()).host));
    try {
      await waitForHydration(page);
      const box = page
        .getByRole('searchbox', { name: 'Search' })
        .or(page.locator('input[aria-label="Search"]'))
        .first();
      await box.focus();
      await box.fill('idempotency');
      const result = page
        .getByRole('option')
        .filter({ hasText: /idempotency/i })
        .first();
      await result.waitFor({ timeout: 15_000 });
      await result.click();
      await page.waitForURL((url) => url.pathname.startsWith('/docs/') && url.pathname !== '/docs/intro');
      await page.locator('h1').first().waitFor();
      assert.deepEqual([...hosts], [new URL(docs.site.origin).host]);
    } finally {
      await page.close();
    }
  });

  test('the search results page lists matching docs under the site title rule', async () => {
    const { page, errors } = await openPage(docs.browser, docs.site.origin, '/search?q=idempotency');
    try {
      await page.waitForFunction(() => document.title === 'Search results for "idempotency" | Mountain');
      await page
        .locator('a[href^="/docs/"]')
        .filter({ hasText: /idempotency/i })
        .first()
        .waitFor({ timeout: 15_000 });
      assert.deepEqual(await axeViolations(page, 'serious', { from: docs.axe }), []);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});

describe('API reference', () => {
  test('shows every operation with method, path and roles, in a 300px sidebar, without a download button', async () => {
    const { page, errors } = await openPage(docs.browser, docs.site.origin, '/api-reference');
    try {
      await waitForHydration(page);
      assert.equal(await page.locator('[data-operation]').count(), OPERATION_IDS.length);
      for (const id of OPERATION_IDS) {
        const heading = page.locator(`h3[id="${id}"]`);
        assert.ok(await heading.isVisible(), `operation ${id}`);
        assert.equal(await page.locator(`#api-reference-menu a[href="#${id}"]`).count(), 1, `menu link to ${id}`);
      }
      const execute = page.locator('[data-operation="execute-transaction"]');
      assert.match((await execute.textContent()) ?? '', /POST\s*\/transaction\/execute-transaction/);
      assert.match((await execute.locator('dl').textContent()) ?? '', /admin\s*editor/);
      assert.equal((await page.locator('#api-reference-menu').boundingBox())?.width, 300);
      assert.equal(await page.getByRole('button', { name: /download/i }).count(), 0);
      assert.equal(await page.getByRole('link', { name: /download/i }).count(), 0);
      assert.equal(await page.locator('a[download]').count(), 0);
      await page.mouse.wheel(0, 20_000);
      await page.locator('h2#schemas').scrollIntoViewIfNeeded();
      assert.deepEqual(errors, [], 'console errors');
    } finally {
      await page.close();
    }
  });

  test('the OpenAPI document itself is served at /openapi/public-api-v3.json, exactly as @mountain/openapi has it', async () => {
    const file = createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json');
    const response = await fetch(`${docs.site.origin}/openapi/public-api-v3.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(await response.text(), readFileSync(file, 'utf8'));
  });

  test('a link to an operation scrolls it just below the navbar and marks it active in the sidebar', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/api-reference#get-transaction');
    try {
      await waitForHydration(page);
      const navbar = (await page.locator('.navbar').boundingBox())?.height ?? 0;
      await page.waitForFunction((top) => {
        const y = document.getElementById('get-transaction')?.getBoundingClientRect().top ?? -1;
        return y >= top - 1 && y <= top + 40;
      }, navbar);
      await page.locator('#api-reference-menu a[href="#get-transaction"][aria-current="location"]').waitFor();
      // A link to a schema opens its fields.
      await page.evaluate(() => {
        window.location.hash = '#schema-Transaction';
      });
      const schema = page.locator('h3#schema-Transaction').locator('xpath=..');
      await schema.getByRole('button', { name: /^Hide \d+ fields$/ }).waitFor();
      await schema
        .locator('code', { hasText: /^idempotencyKey$/ })
        .first()
        .waitFor();
    } finally {
      await page.close();
    }
  });

  test('operations drawn only as they come near keep what is on screen still while the reader scrolls', async () => {
    // Operations off screen are not laid out until they come near (content-visibility), so each counts as an
    // estimate until then. Scrolling up from the last one through operations not drawn yet, and back down, the
    // text on screen must move by exactly what the wheel asked, never jump as an operation above gets its height.
    const last = OPERATION_IDS.at(-1) as string;
    const { page } = await openPage(docs.browser, docs.site.origin, `/api-reference#${last}`);
    try {
      await waitForHydration(page);
      await page.mouse.move(900, 400);
      const STEP = 240;
      const TEXT = 'section[data-operation] :is(h3, h4, p, li, pre)';
      const moves: number[] = [];
      for (const direction of [...Array(15).fill(-1), ...Array(8).fill(1)] as number[]) {
        // The first piece of an operation's text below the navbar, and where it is now.
        const before = await page.evaluate((selector) => {
          const all = [...document.querySelectorAll(selector)];
          const index = all.findIndex((element) => element.getBoundingClientRect().top > 80);
          return { index, top: (all[index] as Element).getBoundingClientRect().top, y: window.scrollY };
        }, TEXT);
        await page.mouse.wheel(0, direction * STEP);
        await page.waitForFunction((y) => window.scrollY !== y, before.y);
        // Two frames: any layout the scroll brought (an operation drawn, the browser's anchoring) is done.
        const top = await page.evaluate(
          ({ selector, index }) =>
            new Promise<number>((resolve) =>
              requestAnimationFrame(() =>
                requestAnimationFrame(() =>
                  resolve((document.querySelectorAll(selector)[index] as Element).getBoundingClientRect().top),
                ),
              ),
            ),
          { selector: TEXT, index: before.index },
        );
        moves.push(Math.round(top - before.top));
      }
      // Within a pixel: positions are fractional.
      const jumps = moves.filter((move, i) => Math.abs(move - (i < 15 ? STEP : -STEP)) > 1);
      assert.deepEqual(jumps, [], `the text moved ${moves.join(', ')} px for wheel steps of ${STEP}`);
    } finally {
      await page.close();
    }
  });

  test('single-field schemas open expanded, nested objects toggle, and samples can be copied', async () => {
    const { page } = await openPage(docs.browser, docs.site.origin, '/api-reference');
    try {
      await waitForHydration(page);
      await docs.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: docs.site.origin });
      // update-subscription-scan answers {eventNotifierSubscription}: one field, shown expanded down to the entity's
      // fields.
      const single = page.locator('[data-operation="update-subscription-scan"]');
      assert.equal(await single.locator('code', { hasText: /^lastScannedBlock$/ }).count(), 0);
      await single.getByRole('button', { name: /^200 OK$/ }).click();
      await single
        .locator('code', { hasText: /^lastScannedBlock$/ })
        .first()
        .waitFor();
      // get-transactions answers {data, meta}: nested objects start collapsed and open on demand.
      const list = page.locator('[data-operation="get-transactions"]');
      await list.getByRole('button', { name: /^200 OK$/ }).click();
      const toggle = list.getByRole('button', { name: /^data\b/ }).first();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await list.locator('code', { hasText: /^transactions$/ }).count(), 0);
      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      await list
        .locator('code', { hasText: /^transactions$/ })
        .first()
        .waitFor();
      // Error answers open behind one toggle, each with the shared error shape.
      const execute = page.locator('[data-operation="execute-transaction"]');
      await execute.getByRole('button', { name: /^Error responses/ }).click();
      await execute.getByRole('button', { name: /^403\b/ }).click();
      await execute.locator('pre', { hasText: '"requiredRoles"' }).first().waitFor();
      const get = page.locator('[data-operation="get-transaction"]');
      await get.getByRole('button', { name: /^Copy request sample/ }).click();
      await get
        .getByRole('button', { name: /^Copy request sample/ })
        .filter({ hasText: 'Copied' })
        .waitFor();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.match(copied, /^curl -X GET '.*\/transaction\/get-transaction\?transactionId=/);
    } finally {
      await page.close();
    }
  });

  test('on a narrow screen the operations menu hides behind a toggle', async () => {
    const viewport = { width: 390, height: 844 };
    const { page } = await openPage(docs.browser, docs.site.origin, '/api-reference', { viewport });
    try {
      await waitForHydration(page);
      const menu = page.locator('#api-reference-menu');
      const toggle = page.getByRole('button', { name: 'Operations' });
      assert.equal(await menu.isVisible(), false);
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      await toggle.click();
      await menu.waitFor({ state: 'visible' });
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      await menu.locator('a[href="#execute-transaction"]').click();
      await menu.waitFor({ state: 'hidden' });
      assert.equal(new URL(page.url()).hash, '#execute-transaction');
    } finally {
      await page.close();
    }
  });
});

function asPattern(expected: string | RegExp): RegExp {
  return typeof expected === 'string' ? new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : expected;
}
