import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { axeViolations } from './axe.ts';
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

  it('refuses a page with frames, whose content it would not check', async () => {
    const page = await browser.context.newPage();
    await page.setContent('<html lang="en"><body><iframe srcdoc="<p>inside</p>"></iframe></body></html>');
    await assert.rejects(axeViolations(page), /the page has 1 frame/);
    await page.close();
  });
});
