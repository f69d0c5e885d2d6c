import { useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { ClientContext, clientFor } from '../api/client.ts';
import { signOut } from '../session/lifecycle.ts';
import type { Credentials } from '../session/session.ts';
import { Nav } from './Nav.tsx';
import { Who } from './Who.tsx';

/** The signed-in console: navigation, who is signed in, sign-out, and the view. */
export function Shell({ credentials }: { credentials: Credentials }) {
  const client = clientFor(credentials);
  const queryClient = useQueryClient();
  // A new session in the same tab (the key rotated, exchanged again): reload what is shown with it, once the views
  // have the new client (an effect runs after they rendered with it).
  // A renewed token of the same session (same end) changes nothing shown.
  const firstSession = useRef(credentials.sessionEndsAt);
  useEffect(() => {
    if (credentials.sessionEndsAt !== firstSession.current) {
      firstSession.current = credentials.sessionEndsAt;
      queryClient.invalidateQueries().catch(() => {});
    }
  }, [credentials.sessionEndsAt, queryClient]);
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);
  const onSignOut = async () => {
    setSigningOut(true);
    await signOut();
    await navigate({ to: '/sign-in' });
  };
  return (
    <ClientContext.Provider value={client}>
      <a className="skip-link" href="#main">
        Skip to the content
      </a>
      <div className="shell">
        <header className="sidebar">
          <Link to="/" className="brand">
            Mountain console
          </Link>
          <Nav />
          <div className="who">
            <Who credentials={credentials} />
            <button type="button" onClick={() => onSignOut().catch(() => {})} disabled={signingOut}>
              Sign out
            </button>
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </ClientContext.Provider>
  );
}
