// Console sign-in links: printed by the admin CLI, exchanged once for an access token that works, refused when used,
// expired, unknown or made before the user's tokens were revoked, and never stored in clear.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createConsoleLink } from '#api/auth/consoleLinks.ts';
import { bearer, createHarness, type Harness } from '#api-testing/harness.ts';
import { adminCli } from '../helpers/adminCli.ts';

describe('console sign-in links', () => {
  let h: Harness;
  let projectId: number;
  let userId: number;
  const admin = adminCli(() => ({
    DATABASE_URL: h.databaseUrl,
    MASTER_KEY: h.masterKey.toString('base64'),
    TOKEN_SIGNING_KEY: h.tokenSigningKey.toString('base64'),
    CONSOLE_URL: 'https://console.example.com/console/',
  }));
  const exchange = (code: string) => h.call('exchange-console-link', { body: { code } });

  before(async () => {
    h = await createHarness();
    projectId = (await h.project('Linked')).project.id;
    userId = (await h.member(projectId, 'reader')).userId;
  });
  after(() => h.close());

  it('console-link prints a link whose code signs in once, as the user, in the project', async () => {
    const { rows } = await h.db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
    const printed = admin('console-link', '--user', rows[0]?.email as string, '--project', String(projectId), '--json');
    assert.equal(printed.code, 0, printed.err);
    const { link, expiresAt } = JSON.parse(printed.out);
    assert.match(link, /^https:\/\/console\.example\.com\/console\/sign-in#code=[A-Za-z0-9_-]{43}$/);
    const minutes = (Date.parse(expiresAt) - Date.now()) / 60_000;
    assert.ok(minutes > 14 && minutes <= 15, `15 minutes by default, got ${minutes}`);
    const code = link.split('#code=')[1] as string;

    const stored = await h.db.query<{ code_hash: Buffer }>('SELECT code_hash FROM console_links');
    assert.deepEqual(
      stored.rows.map((r) => r.code_hash.toString('hex')),
      [createHash('sha256').update(code).digest('hex')],
      'only the code’s hash is kept',
    );

    const first = await exchange(code);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.projectId, projectId);
    const detail = await h.call('get-project-detail', { headers: bearer(first.body.accessToken) });
    assert.equal(detail.status, 200);
    assert.deepEqual(detail.body.caller, { credential: 'accessToken', role: 'reader' });

    const again = await exchange(code);
    assert.equal(again.status, 401);
    assert.equal(again.body.code, 'CONSOLE_LINK_REFUSED');
    assert.match(again.body.message, /already used/);
  });

  it('two exchanges of one code at once give one token between them', async () => {
    const { code } = await createConsoleLink(h.db, { userId, expiresInSeconds: 60 });
    const answers = await Promise.all([exchange(code), exchange(code), exchange(code)]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401, 401]);
  });

  it('refuses an expired link and an unknown code, naming which', async () => {
    const { code } = await createConsoleLink(h.db, { userId, expiresInSeconds: 60 });
    await h.db.query("UPDATE console_links SET expires_at = now() - interval '1 second'");
    const expired = await exchange(code);
    assert.equal(expired.status, 401);
    assert.match(expired.body.message, /has expired/);
    const unknown = await exchange('A'.repeat(43));
    assert.equal(unknown.status, 401);
    assert.match(unknown.body.message, /is not known/);
  });

  it('revoking the user’s tokens, or removing them from the project, ends their unused links', async () => {
    const member = await h.member(projectId, 'editor');
    const { rows } = await h.db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [member.userId]);
    const email = rows[0]?.email as string;
    const linkCode = () => {
      const printed = admin('console-link', '--user', email, '--project', String(projectId), '--json');
      assert.equal(printed.code, 0, printed.err);
      return (JSON.parse(printed.out).link as string).split('#code=')[1] as string;
    };

    const beforeRevocation = linkCode();
    const revoked = admin('revoke-user-tokens', '--user', email);
    assert.equal(revoked.code, 0, revoked.err);
    const refused = await exchange(beforeRevocation);
    assert.equal(refused.status, 401, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'CONSOLE_LINK_REFUSED');
    assert.match(refused.body.message, /was revoked/);

    // A link made after the revocation signs in (a second later: tokens issued in the revocation's second are
    // refused too).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const afterRevocation = await exchange(linkCode());
    assert.equal(afterRevocation.status, 200, JSON.stringify(afterRevocation.body));
    const detail = await h.call('get-project-detail', { headers: bearer(afterRevocation.body.accessToken) });
    assert.equal(detail.status, 200);

    const beforeRemoval = linkCode();
    const removed = admin('remove-member', '--project', String(projectId), '--user', email);
    assert.equal(removed.code, 0, removed.err);
    const unused = await h.db.query(
      'SELECT 1 FROM console_links WHERE user_id = $1 AND used_at IS NULL AND expires_at > now()',
      [member.userId],
    );
    assert.equal(unused.rowCount, 0, 'no link of the user is left unexpired');
    const refusedAfterRemoval = await exchange(beforeRemoval);
    assert.equal(refusedAfterRemoval.status, 401);
    assert.match(refusedAfterRemoval.body.message, /was revoked/);
  });

  it('refuses a malformed code with a field error, and a link longer than an hour or for a non-member', async () => {
    const malformed = await exchange('short');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.details[0].field, 'body.code');
    const { rows } = await h.db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
    const email = rows[0]?.email as string;
    const long = admin('console-link', '--user', email, '--expires-in', '2h');
    assert.equal(long.code, 2);
    assert.match(long.err, /at most 1h/);
    const other = (await h.project('Other')).project.id;
    const outsider = admin('console-link', '--user', email, '--project', String(other));
    assert.equal(outsider.code, 2);
    assert.match(outsider.err, /not a member of project/);
  });
});
