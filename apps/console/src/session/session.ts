// The console's credentials: in memory, mirrored in sessionStorage (this tab only, gone when it closes) so a reload
// keeps the session. Never in localStorage, a cookie or an address. Signing out forgets them.
import { useSyncExternalStore } from 'react';

export type Credentials =
  | { kind: 'apiKey'; apiKey: string }
  | { kind: 'accessToken'; accessToken: string; projectId: number | null; expiresAt: string };

const STORAGE_KEY = 'mountain-console-session';
type Listener = () => void;

let current: Credentials | null = read();
const listeners = new Set<Listener>();

function read(): Credentials | null {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    return text ? (JSON.parse(text) as Credentials) : null;
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
  signIn: (credentials: Credentials): void => set(credentials),
  signOut: (): void => set(null),
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The signed-in credentials, re-rendering when they change. */
export function useCredentials(): Credentials | null {
  return useSyncExternalStore(session.subscribe, session.get, session.get);
}
