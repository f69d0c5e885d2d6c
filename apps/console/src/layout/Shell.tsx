import { useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { ClientContext, clientFor } from '../api/client.ts';
import { type Credentials, session } from '../session/session.ts';
import { Nav } from './Nav.tsx';
import { Who } from './Who.tsx';

/** The signed-in console: navigation, who is signed in, sign-out, and the view. */
export function Shell({ credentials }: { credentials: Credentials }) {
  const client = clientFor(credentials);
  const queryClient = useQueryClient();
  // New credentials in the same session (a rotated key): reload what is shown with them, once the views have the new
  // client (an effect runs after they rendered with it).
  const firstClient = useRef(client);
  useEffect(() => {
    if (client !== firstClient.current) queryClient.invalidateQueries().catch(() => {});
  }, [client, queryClient]);
  const navigate = useNavigate();
  const signOut = () => {
    session.signOut();
    queryClient.clear();
    navigate({ to: '/sign-in' });
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
            <button type="button" onClick={signOut}>
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
