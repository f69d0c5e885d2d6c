import { MountainError } from '@mountain/public-api-client';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { router } from './routes.tsx';
import { session } from './session/session.ts';
import './styles/app.css';

/** A 401 means the credentials are gone (a rotated key, an expired or revoked token): sign out, back to sign-in. */
const onError = (error: unknown) => {
  if (error instanceof MountainError && error.status === 401 && session.get()) {
    session.signOut();
    queryClient.clear();
  }
};

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // The client already retries what may succeed when sent again.
      retry: false,
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
