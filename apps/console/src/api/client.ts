// The console talks to the API only through @mountain/public-api-client: what it calls is in the OpenAPI document.
import { MountainClient } from '@mountain/public-api-client';
import { createContext, useContext } from 'react';
import type { Credentials } from '../session/session.ts';

/** The Public API on the console's own origin (the API serves the console: no CORS). */
export const apiBaseUrl = () => `${window.location.origin}/public-api/v3`;

export function createClient(credentials: Credentials): MountainClient {
  return new MountainClient({
    baseUrl: apiBaseUrl(),
    maxRetries: 1,
    timeout: 20_000,
    accessToken: credentials.accessToken,
    ...(credentials.projectId !== null ? { projectId: credentials.projectId } : {}),
  });
}

const clients = new WeakMap<Credentials, MountainClient>();

/**
 * The client of these credentials, the same one each time: the shell hands it to the views and the routes' loaders
 * call with it (new credentials, such as a renewed token, are a new object, so a new client).
 */
export function clientFor(credentials: Credentials): MountainClient {
  let client = clients.get(credentials);
  if (!client) {
    client = createClient(credentials);
    clients.set(credentials, client);
  }
  return client;
}

export const ClientContext = createContext<MountainClient | null>(null);

/** The signed-in client; only views below the signed-in shell call it. */
export function useClient(): MountainClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient is used outside the signed-in console');
  return client;
}
