// The console's routes (TanStack Router, typed): the sign-in page, and the signed-in areas inside the shell.
import {
  createRootRoute,
  createRoute,
  createRouter,
  Link,
  lazyRouteComponent,
  Navigate,
  Outlet,
  redirect,
} from '@tanstack/react-router';
import { Shell } from './layout/Shell.tsx';
import { session, useCredentials } from './session/session.ts';
import { SignInView } from './signIn/SignInView.tsx';
import { isStatusFilter, type StatusFilter } from './transactions/statuses.ts';
import { type AttemptSearch, validateAttemptSearch } from './webhooks/attemptSearch.ts';

// Each area is its own chunk, loaded when first visited: the first load is the shell and the sign-in page.
const ContractsView = lazyRouteComponent(() => import('./contracts/ContractsView.tsx'), 'ContractsView');
const EventsView = lazyRouteComponent(() => import('./events/EventsView.tsx'), 'EventsView');
const RecordsView = lazyRouteComponent(() => import('./events/RecordsView.tsx'), 'RecordsView');
const OverviewView = lazyRouteComponent(() => import('./overview/OverviewView.tsx'), 'OverviewView');
const ProjectView = lazyRouteComponent(() => import('./project/ProjectView.tsx'), 'ProjectView');
const ExecuteView = lazyRouteComponent(() => import('./transactions/ExecuteView.tsx'), 'ExecuteView');
const TransactionDetailView = lazyRouteComponent(
  () => import('./transactions/TransactionDetailView.tsx'),
  'TransactionDetailView',
);
const TransactionsView = lazyRouteComponent(() => import('./transactions/TransactionsView.tsx'), 'TransactionsView');
const WebhooksView = lazyRouteComponent(() => import('./webhooks/WebhooksView.tsx'), 'WebhooksView');
const AttemptsView = lazyRouteComponent(() => import('./webhooks/AttemptsView.tsx'), 'AttemptsView');

function NotFound() {
  return (
    <main className="signin">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to the console</Link>
      </p>
    </main>
  );
}

const rootRoute = createRootRoute({ component: Outlet, notFoundComponent: NotFound });

const signInRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-in', component: SignInView });

function SignedIn() {
  const credentials = useCredentials();
  // Signed out in another view (or the session expired): back to the sign-in page.
  if (!credentials) return <Navigate to="/sign-in" />;
  return <Shell credentials={credentials} />;
}

const consoleRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: '_console',
  beforeLoad: () => {
    if (!session.get()) throw redirect({ to: '/sign-in' });
  },
  component: SignedIn,
});

const child = <P extends string>(path: P, component: typeof OverviewView) =>
  createRoute({ getParentRoute: () => consoleRoute, path, component });

const transactionsRoute = createRoute({
  getParentRoute: () => consoleRoute,
  path: '/transactions',
  component: TransactionsView,
  validateSearch: (search: Record<string, unknown>): { status?: StatusFilter; page: number } => {
    const page = Number(search.page);
    return {
      ...(isStatusFilter(search.status) ? { status: search.status } : {}),
      page: Number.isInteger(page) && page >= 1 ? page : 1,
    };
  },
});

const executeRoute = createRoute({
  getParentRoute: () => consoleRoute,
  path: '/execute/$functionId',
  component: ExecuteView,
  validateSearch: (search: Record<string, unknown>): { contractId: number } => ({
    contractId: Number(search.contractId) || 0,
  }),
});

const attemptsRoute = createRoute({
  getParentRoute: () => consoleRoute,
  path: '/webhooks/attempts',
  component: AttemptsView,
  validateSearch: (search: Record<string, unknown>): AttemptSearch => validateAttemptSearch(search),
});

const routeTree = rootRoute.addChildren([
  signInRoute,
  consoleRoute.addChildren([
    child('/', OverviewView),
    child('/project', ProjectView),
    child('/contracts', ContractsView),
    transactionsRoute,
    child('/transactions/$transactionId', TransactionDetailView),
    executeRoute,
    child('/events', EventsView),
    child('/events/$subscriptionId', RecordsView),
    child('/webhooks', WebhooksView),
    attemptsRoute,
  ]),
]);

export const router = createRouter({ routeTree, basepath: '/console' });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
