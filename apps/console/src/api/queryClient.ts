// The console's one QueryClient: the views' hooks read it, and the routes' loaders start their views' calls in it
// (routes.tsx) while the view's chunk is still on its way.
import { MountainError } from '@mountain/public-api-client';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { session } from '../session/session.ts';

/**
 * A 401 means the credentials are gone (a rotated key's token, an expired or revoked token): forget them, back to
 * sign-in. Nothing to revoke: the token is refused already.
 */
const onError = (error: unknown) => {
  if (error instanceof MountainError && error.status === 401 && session.get()) {
    session.forget();
    queryClient.clear();
  }
};

export const queryClient = new QueryClient({
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
