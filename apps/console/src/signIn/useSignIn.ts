import { MountainClient } from '@mountain/public-api-client';
import { useMutation } from '@tanstack/react-query';
import { apiBaseUrl, createClient } from '../api/client.ts';
import { session } from '../session/session.ts';

/** Signs in with a project API key: checked by reading the project before it is kept. */
export function useApiKeySignIn() {
  return useMutation({
    mutationFn: async (apiKey: string) => {
      const credentials = { kind: 'apiKey' as const, apiKey: apiKey.trim() };
      await createClient(credentials).getProjectDetail({ maxRetries: 0 });
      session.signIn(credentials);
    },
  });
}

/** Exchanges a one-time link's code for an access token (exchange-console-link) and keeps it. */
export function useLinkSignIn() {
  return useMutation({
    mutationFn: async (code: string) => {
      const answer = await MountainClient.exchangeConsoleLink({ code }, { baseUrl: apiBaseUrl(), maxRetries: 0 });
      session.signIn({
        kind: 'accessToken',
        accessToken: answer.accessToken,
        projectId: answer.projectId,
        expiresAt: answer.expiresAt,
      });
    },
  });
}
