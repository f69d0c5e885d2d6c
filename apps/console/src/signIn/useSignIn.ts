import { MountainClient } from '@mountain/public-api-client';
import { useMutation } from '@tanstack/react-query';
import { apiBaseUrl, createClient } from '../api/client.ts';
import { exchangeApiKey, revoke } from '../session/lifecycle.ts';
import { type Credentials, session } from '../session/session.ts';

/**
 * Signs in with a project API key: exchanged at once for a token that acts as the key (exchange-api-key), which is
 * all the console keeps. The mutation is dropped as soon as nothing watches it (`gcTime: 0`), so the key it was
 * called with does not stay in memory; the form forgets it too.
 */
export function useApiKeySignIn() {
  return useMutation({
    gcTime: 0,
    mutationFn: async (apiKey: string) => {
      const credentials = await exchangeApiKey(apiKey.trim());
      const previous = session.get();
      session.signIn(credentials);
      if (previous) await revoke(previous);
    },
  });
}

/** Who a session is, in words: "reader of “Acme”, as a user" (the project and role its credentials read). */
export async function describeSession(credentials: Credentials): Promise<string> {
  const how = credentials.signedInWith === 'apiKey' ? 'with the project API key' : 'as a user';
  try {
    const detail = await createClient(credentials).getProjectDetail({ maxRetries: 0 });
    return `${detail.caller.role} of “${detail.data.project.projectName}”, ${how}`;
  } catch {
    return `someone ${how}`;
  }
}

/**
 * A link exchanged while another session is signed in: kept aside until the person says which to keep; the token
 * of the one turned down is revoked (SignInView).
 */
export interface LinkToConfirm {
  credentials: Credentials;
  /** Who the link signs in as, and who is signed in now (describeSession). */
  linkAs: string;
  signedInAs: string;
}

/**
 * Exchanges a one-time link's code for an access token (exchange-console-link) and keeps it. When a session is
 * signed in already, the new one is not kept but answered, with both described, for the person to confirm: a link
 * someone else sent must not silently replace their session (they would then work in the sender's project).
 */
export function useLinkSignIn() {
  return useMutation({
    mutationFn: async (code: string): Promise<LinkToConfirm | undefined> => {
      const answer = await MountainClient.exchangeConsoleLink({ code }, { baseUrl: apiBaseUrl(), maxRetries: 0 });
      const credentials: Credentials = {
        signedInWith: 'link',
        accessToken: answer.accessToken,
        projectId: answer.projectId,
        expiresAt: answer.expiresAt,
        sessionEndsAt: answer.expiresAt,
        renewable: false,
      };
      const current = session.get();
      if (!current) {
        session.signIn(credentials);
        return undefined;
      }
      const [linkAs, signedInAs] = await Promise.all([describeSession(credentials), describeSession(current)]);
      return { credentials, linkAs, signedInAs };
    },
  });
}
