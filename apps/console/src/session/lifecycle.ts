// What happens to the session's token over time: renewed before it expires while the tab is used (a token of the
// API key lives 15 minutes; its session at most 12 hours), forgotten when it expires, revoked when the person signs
// out or turns down a link's session (revoke-access-token), so that a copy of it stops working too.
import { MountainClient, MountainError } from '@mountain/public-api-client';
import { apiBaseUrl, createClient } from '../api/client.ts';
import { queryClient } from '../api/queryClient.ts';
import { type Credentials, session } from './session.ts';

/** How long before its expiry a token of the API key is renewed. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** How often a token due for renewal looks again whether the tab is used. */
const LOOK_AGAIN_MS = 30_000;

/**
 * The credentials of a token exchanged for the project API key (exchange-api-key or renew-access-token). Its expiry
 * is counted on this browser's clock from `expiresIn`: a clock minutes off the server's neither renews in a loop nor
 * lets the token lapse.
 */
export function keyCredentials(answer: {
  accessToken: string;
  expiresAt: string;
  expiresIn: number;
  projectId: number;
  sessionEndsAt: string;
}): Credentials {
  const { accessToken, projectId, sessionEndsAt } = answer;
  return {
    signedInWith: 'apiKey',
    accessToken,
    projectId,
    expiresAt: new Date(Date.now() + answer.expiresIn * 1000).toISOString(),
    sessionEndsAt,
    renewable: Date.parse(answer.expiresAt) < Date.parse(sessionEndsAt),
  };
}

/**
 * Exchanges a project API key for a token of a new session (exchange-api-key). The key goes out in this one
 * request and is kept nowhere: neither the client nor the answer outlives this call.
 */
export async function exchangeApiKey(apiKey: string): Promise<Credentials> {
  const client = new MountainClient({ baseUrl: apiBaseUrl(), apiKey, maxRetries: 0, timeout: 20_000 });
  return keyCredentials(await client.exchangeApiKey());
}

/** Revokes the token (revoke-access-token); an answer that it is refused already, or no answer, changes nothing. */
export async function revoke(credentials: Credentials): Promise<void> {
  await createClient(credentials)
    .revokeAccessToken({ maxRetries: 1, timeout: 5_000 })
    .catch(() => {});
}

/** Signs out: the token is revoked (so a copy of it stops working), then forgotten in this tab. */
export async function signOut(): Promise<void> {
  const credentials = session.get();
  if (credentials) await revoke(credentials);
  if (session.get() === credentials) session.forget();
  queryClient.clear();
}

let usedSinceRenewal = false;
const markUsed = () => {
  usedSinceRenewal = true;
};
/** Used: a key or a pointer pressed since the last renewal, or the tab in front with the focus now. */
const tabInUse = () => usedSinceRenewal || (document.visibilityState === 'visible' && document.hasFocus());

/**
 * Keeps the signed-in session's token alive while the tab is used: five minutes before a token of the API key
 * expires, it is renewed if the tab was used since the last renewal; otherwise it is let expire, and the session
 * is forgotten at its expiry (so is a link's token, which is not renewable). Started once, by main.tsx.
 */
export function renewWhileUsed(): void {
  for (const type of ['pointerdown', 'keydown'] as const) {
    window.addEventListener(type, markUsed, { capture: true, passive: true });
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    clearTimeout(timer);
    const credentials = session.get();
    if (!credentials) return;
    const expiresAt = Date.parse(credentials.expiresAt);
    const renewable = credentials.renewable;
    const at = renewable ? expiresAt - RENEW_BEFORE_MS : expiresAt;
    timer = setTimeout(
      () => {
        tick(credentials, renewable).catch(() => {});
      },
      Math.max(0, at - Date.now()),
    );
  };
  const tick = async (credentials: Credentials, renewable: boolean) => {
    if (session.get() !== credentials) return;
    let left = Date.parse(credentials.expiresAt) - Date.now();
    if (renewable && left > 0 && tabInUse()) {
      usedSinceRenewal = false;
      try {
        const renewed = keyCredentials(await createClient(credentials).renewAccessToken({ maxRetries: 2 }));
        // Signed out or in again meanwhile: that session stands.
        if (session.get() === credentials) session.signIn(renewed);
        return;
      } catch (error) {
        // Refused (revoked, the key rotated): the session is over. No answer: tried again below.
        if (error instanceof MountainError && error.status === 401) left = 0;
      }
    }
    if (left > 0) {
      // Not used yet, or no answer: looked at again shortly, until the token expires.
      timer = setTimeout(
        () => {
          tick(credentials, renewable).catch(() => {});
        },
        Math.min(left, LOOK_AGAIN_MS),
      );
      return;
    }
    if (session.get() !== credentials) return;
    session.forget();
    queryClient.clear();
  };
  session.subscribe(schedule);
  schedule();
}
