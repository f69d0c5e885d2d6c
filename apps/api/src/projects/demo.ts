import { CONSOLE_LINK_DEFAULT_SECONDS, createConsoleLink } from '#api/auth/consoleLinks.ts';
import { issueAccessToken } from '#api/auth/revocation.ts';
import type { Db } from '#api/db/db.ts';
import type { WalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createProject, getProjectDetail, rotateApiKey } from './projects.ts';
import { createUser, findUserId, setMembership } from './users.ts';

export const DEMO_EMAIL = 'demo@mountain.dev';

/**
 * The demo project of a development platform: created on the first start, owned by demo@mountain.dev.
 * Keys are never stored in clear, so every start issues a fresh API key (the previous one stops working)
 * and a fresh 24-hour access token, and a one-time console sign-in link.
 */
export async function ensureDemoProject(db: Db, keys: WalletKeys, tokenSigningKey: Buffer) {
  let userId = await findUserId(db, DEMO_EMAIL);
  let projectId: number;
  let apiKey: string;
  const existing =
    userId === undefined
      ? undefined
      : (
          await db.query<{ project_id: number }>(
            'SELECT project_id FROM memberships WHERE user_id = $1 ORDER BY project_id LIMIT 1',
            [userId],
          )
        ).rows[0];
  if (existing) {
    projectId = existing.project_id;
    apiKey = await rotateApiKey(db, projectId, 'test');
  } else {
    const created = await createProject(db, keys, { projectName: 'Demo project', keyMode: 'test' });
    projectId = created.project.id;
    apiKey = created.apiKey;
    userId ??= (await createUser(db, { email: DEMO_EMAIL, name: 'Demo developer' })).id;
    await setMembership(db, { projectId, userId, role: 'admin' });
  }
  const { token, claims } = await issueAccessToken(db, tokenSigningKey, {
    userId: userId as number,
    expiresInSeconds: 86_400,
  });
  // A one-time sign-in link to the console for the demo user, in this project.
  const link = await createConsoleLink(db, {
    userId: userId as number,
    projectId,
    expiresInSeconds: CONSOLE_LINK_DEFAULT_SECONDS,
  });
  const detail = await getProjectDetail(db, projectId);
  return {
    projectId,
    apiKey,
    /** The testnet system wallet's address: it signs on chain 1337. */
    testnetWallet: detail?.mSystemWalletTestnet.address as `0x${string}`,
    accessToken: token,
    accessTokenExpiresAt: new Date(claims.exp * 1000),
    consoleLinkCode: link.code,
  };
}
