// The console's credentials: in memory, mirrored in sessionStorage (this tab only, gone when it closes) so a reload
// keeps the session. Never in localStorage, a cookie or an address. They are always an access token: a project API
// key is exchanged for one at sign-in (exchange-api-key) and never kept, neither here nor anywhere in memory.
import { useSyncExternalStore } from 'react';

export interface Credentials {
  /**
   * How the session signed in: with the project API key (its token acts as the key for 15 minutes, renewed while
   * the tab is used: session/lifecycle.ts) or a one-time link (a user's token for 12 hours).
   */
  signedInWith: 'apiKey' | 'link';
  accessToken: string;
  projectId: number | null;
  /** When the token expires, by this browser's clock (from the answer's `expiresIn`, when it has one). */
  expiresAt: string;
  /** The session's end as the server says it (12 hours after a key's sign-in): it also names the session. */
  sessionEndsAt: string;
  /** Whether the token can be renewed (a key's, before its session's end). */
  renewable: boolean;
}

const STORAGE_KEY = 'mountain-console-session';
type Listener = () => void;

let current: Credentials | null = read();
const listeners = new Set<Listener>();

function read(): Credentials | null {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    const stored = text ? (JSON.parse(text) as Partial<Credentials>) : null;
    // A session kept by an earlier console (one holding a key) is not read: it signs in again.
    const complete =
      stored &&
      typeof stored.accessToken === 'string' &&
      stored.signedInWith &&
      typeof stored.expiresAt === 'string' &&
      typeof stored.renewable === 'boolean';
    return complete ? (stored as Credentials) : null;
  } catch {
    return null;
  }
}

function set(next: Credentials | null): void {
  current = next;
  try {
    if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (a private window's quota): the session lives in memory only.
  }
  for (const listener of listeners) listener();
}

export const session = {
  get: (): Credentials | null => current,
  /** Signs in, or moves on to a renewed token of the same session. */
  signIn: (credentials: Credentials): void => set(credentials),
  /** Forgets the credentials in this tab (session/lifecycle.ts's signOut also revokes the token first). */
  forget: (): void => set(null),
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The signed-in credentials, re-rendering when they change. */
export function useCredentials(): Credentials | null {
  return useSyncExternalStore(session.subscribe, session.get, session.get);
}
