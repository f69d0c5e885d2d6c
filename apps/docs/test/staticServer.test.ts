// The static server of the built site (npm start, the browser tests), on a small site of its own: addresses it
// cannot read answer 400 and never end the process.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sendRaw } from '@mountain/testkit/rawHttp.ts';
import { type StaticSite, serveBuild } from '../scripts/staticServer.ts';

describe('the docs static server', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'mountain-site-'));
  let site: StaticSite;
  let port: number;

  before(async () => {
    chmodSync(root, 0o755);
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'index.html'), '<h1>Home</h1>');
    writeFileSync(path.join(root, '404.html'), '<h1>Page Not Found</h1>');
    writeFileSync(path.join(root, 'docs', 'intro.html'), '<h1>Introduction</h1>');
    site = await serveBuild(root);
    port = Number(new URL(site.origin).port);
  });
  after(async () => {
    await site?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('an address that cannot be decoded answers 400, and the site goes on serving', async () => {
    for (const target of ['/%E0%A4%A', '/docs/%ZZ', '/%']) {
      const bad = await sendRaw(port, { method: 'GET', target, headers: [] });
      assert.equal(bad.status, 400, target);
      assert.match(bad.body.toString(), /not a valid URL path/);
    }
    const good = await sendRaw(port, { method: 'GET', target: '/docs/intro', headers: [] });
    assert.equal(good.status, 200);
    assert.match(good.body.toString(), /Introduction/);
  });
});
