import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { axeViolations, serveAxe } from './axe.ts';
import { type Browser, launchBrowser } from './browser.ts';

const PAGE = `<html lang="en"><head><title>axe</title></head><body>
  <main><h1>A page</h1><p style="color:#777;background:#888">grey on grey</p><img src="/x.png"></main>
  <div>outside every landmark</div>
</body></html>`;

describe('axeViolations', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => browser.close());

  it('names each violation with its impact, and leaves out those below the impact asked for', async () => {
    const page = await browser.context.newPage();
    await page.setContent(PAGE);
    const every = await axeViolations(page);
    assert.deepEqual(
      every.map((line) => line.split(':')[0]),
      ['color-contrast (serious)', 'image-alt (critical)', 'region (moderate)'],
    );
    assert.match(every[2] as string, /— div$/);
    // Run a second time in the same page: axe-core is already there.
    assert.deepEqual(await axeViolations(page, 'serious'), every.slice(0, 2));
    assert.deepEqual(await axeViolations(page, 'critical'), every.slice(1, 2));
    await page.close();
  });

  it('loads axe-core from serveAxe, with the same violations, and later pages take it from the cache', async () => {
    const site = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
    );
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const axe = await serveAxe();
    try {
      const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      for (let round = 0; round < 3; round += 1) {
        const page = await browser.context.newPage();
        const errors: string[] = [];
        page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
        await page.goto(`${origin}/`);
        assert.deepEqual(
          (await axeViolations(page, 'minor', { from: axe })).map((line) => line.split(':')[0]),
          ['color-contrast (serious)', 'image-alt (critical)', 'region (moderate)'],
        );
        assert.deepEqual(errors, []);
        await page.close();
      }
      assert.equal(axe.requests, 1, 'one request: the later pages took it from the cache');
    } finally {
      await axe.close();
      site.close();
    }
  });

  it('refuses a page with frames, whose content it would not check', async () => {
    const page = await browser.context.newPage();
    await page.setContent('<html lang="en"><body><iframe srcdoc="<p>inside</p>"></iframe></body></html>');
    await assert.rejects(axeViolations(page), /the page has 1 frame/);
    await page.close();
  });
});
