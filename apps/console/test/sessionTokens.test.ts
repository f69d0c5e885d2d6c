// The console keeps no API key: signed in with the key, the tab holds only a short-lived token that acts as it
// (exchange-api-key), renewed while the tab is used; signed in with a link, the user's token. Neither the tab's
// storage nor its script's memory (a heap snapshot) holds the key, and Sign out revokes the token
// (revoke-access-token), so a copy of it answers 401 too. The CSP's Trusted Types refuse a string in a DOM sink.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer } from '@mountain/api/testing';
import type { Page } from 'playwright-core';
import { newTab } from './helpers/page.ts';
import { type Platform, startPlatform } from './helpers/platform.ts';

interface Stored {
  signedInWith: 'apiKey' | 'link';
  accessToken: string;
  projectId: number | null;
  renewable: boolean;
}

describe('the console’s session holds a token, never the API key', { timeout: 180_000 }, () => {
  let p: Platform;
  let apiKey: string;
  let projectId: number;
  let reader: { userId: number };
  let page: Page;
  let errors: string[];

  before(async () => {
    p = await startPlatform();
    const created = await p.h.project('Token project');
    apiKey = created.apiKey;
    projectId = created.project.id;
    reader = await p.h.member(projectId, 'reader');
    ({ page, errors } = await newTab(p.browser));
  });
  after(async () => {
    await p?.close();
  });

  const url = (path: string) => `${p.origin}/console${path}`;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const stored = (): Promise<Stored> =>
    page.evaluate(() => JSON.parse(sessionStorage.getItem('mountain-console-session') ?? 'null'));
  const status = async (token: string) => (await p.h.call('get-project-detail', { headers: bearer(token) })).status;

  /** Everything the tab may keep: session and local storage, cookies, IndexedDB and Cache Storage names. */
  const everythingStored = () =>
    page.evaluate(async () =>
      JSON.stringify({
        session: Object.entries(sessionStorage),
        local: Object.entries(localStorage),
        cookies: document.cookie,
        databases: (await indexedDB.databases()).map((d) => d.name),
        caches: await caches.keys(),
      }),
    );
  /** Whether the page's JavaScript heap, after a garbage collection, still holds the string anywhere. */
  const heapHolds = async (secret: string) => {
    const cdp = await page.context().newCDPSession(page);
    let snapshot = '';
    cdp.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => {
      snapshot += chunk;
    });
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    await cdp.detach();
    assert.ok(snapshot.length > 100_000, 'a heap snapshot was taken');
    return snapshot.includes(secret);
  };
  const assertNoKeyStored = async () => {
    const all = await everythingStored();
    assert.ok(!all.includes(apiKey), 'the key is not stored');
    assert.doesNotMatch(all, /mtn_(test|live)_/, 'nothing key-shaped is stored');
  };

  it('signs in with the key: storage and memory hold a token of the key, not the key', async () => {
    // A clock the test moves forward, for the renewal below; it runs on by itself until then.
    await page.clock.install();
    await page.goto(url('/'));
    await page.getByLabel('Project API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    await page.getByText('with the project API key').waitFor();
    const session = await stored();
    assert.equal(session.signedInWith, 'apiKey');
    assert.equal(session.projectId, projectId);
    assert.equal(session.renewable, true);
    assert.equal(await status(session.accessToken), 200, 'the token acts as the key');
    await assertNoKeyStored();
    assert.equal(await heapHolds(apiKey), false, 'no copy of the key is left in the page’s memory');
  });

  it('renews the token while the tab is used; Sign out makes it and its renewals answer 401', async () => {
    const first = (await stored()).accessToken;
    const renewal = page.waitForResponse((r) => r.url().endsWith('/auth/renew-access-token'));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).click();
    // Ten and a half minutes on: five minutes before the 15-minute token expires, the used tab renews it.
    await page.clock.fastForward('10:30');
    assert.equal((await renewal).status(), 201);
    await page.waitForFunction(
      (old) => JSON.parse(sessionStorage.getItem('mountain-console-session') ?? '{}').accessToken !== old,
      first,
    );
    const renewed = (await stored()).accessToken;
    assert.equal(await status(renewed), 200);
    assert.equal(await status(first), 200, 'the token before stays good until its expiry');
    await assertNoKeyStored();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    assert.equal(await status(renewed), 401, 'signed out on the server, not only in the tab');
    assert.equal(await status(first), 401, 'with every renewal of the session');
  });

  it('signs in with a link: the tab holds the user’s token; Sign out revokes it', async () => {
    const code = await p.h.consoleLinkCode(reader.userId, { projectId });
    await page.goto(url(`/sign-in#code=${code}`));
    await heading('Overview');
    await page.getByText('as a user').waitFor();
    const session = await stored();
    assert.equal(session.signedInWith, 'link');
    assert.equal(session.renewable, false);
    assert.equal(await status(session.accessToken), 200);
    await assertNoKeyStored();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Mountain console');
    assert.equal(await status(session.accessToken), 401);
  });

  it('enforces Trusted Types: a string assigned to a DOM sink is refused', async () => {
    const response = await page.goto(url('/'));
    assert.match(response?.headers()['content-security-policy'] ?? '', /require-trusted-types-for 'script'/);
    await heading('Sign in to the Mountain console');
    const outcome = await page.evaluate(() => {
      try {
        document.createElement('div').innerHTML = '<img src=x>';
        return 'assigned';
      } catch (error) {
        return (error as Error).name;
      }
    });
    assert.equal(outcome, 'TypeError');
    assert.deepEqual(
      errors.filter((e) => !/401|Unauthorized|TrustedHTML/.test(e)),
      [],
      'no other console error: the console itself needs no policy',
    );
  });
});
