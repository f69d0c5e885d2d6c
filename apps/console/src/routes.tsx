// The console's routes (TanStack Router, typed): the sign-in page, and the signed-in areas inside the shell. Each
// signed-in route's loader starts its view's calls (the same queries as the view's hooks, in the same QueryClient):
// they run while the view's chunk downloads. The first view of a page load waits for them a little (firstView), so
// that its first paint holds what they answered; a later one shows at once, with its loading state until they do.
import type { MountainClient } from '@mountain/public-api-client';
import type { FetchQueryOptions, QueryClient, QueryKey } from '@tanstack/react-query';
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  Link,
  lazyRouteComponent,
  Navigate,
  Outlet,
  redirect,
} from '@tanstack/react-router';
import { clientFor } from './api/client.ts';
import { queryClient } from './api/queryClient.ts';
import { activatedFunctionsQuery, contractsQuery } from './contracts/useContracts.ts';
import { recordsQuery, subscriptionsQuery } from './events/useSubscriptions.ts';
import { Shell } from './layout/Shell.tsx';
import { statisticsQuery } from './overview/useStatistics.ts';
import { membersQuery, projectDetailQuery, walletBalancesQuery } from './project/useProject.ts';
import { session, useCredentials } from './session/session.ts';
import { SignInView } from './signIn/SignInView.tsx';
import { isStatusFilter, type StatusFilter } from './transactions/statuses.ts';
import { transactionQuery, transactionsQuery } from './transactions/useTransactions.ts';
import { type AttemptSearch, validateAttemptSearch } from './webhooks/attemptSearch.ts';
import { ATTEMPTS_PER_PAGE, attemptsQuery, endpointsQuery } from './webhooks/useWebhooks.ts';

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

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({
  component: Outlet,
  notFoundComponent: NotFound,
});

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
  beforeLoad: (): { client: MountainClient } => {
    const credentials = session.get();
    if (!credentials) throw redirect({ to: '/sign-in' });
    return { client: clientFor(credentials) };
  },
  // The shell names the project and the caller's role (which controls each view shows) on every view.
  loader: ({ context }) => firstView(prefetch(context, projectDetailQuery(context.client))),
  component: SignedIn,
});

type Context = { queryClient: QueryClient; client: MountainClient };

/** Starts a query; the promise settles when it has (a failure is the view's to show: its hook has the state). */
function prefetch<Data, Key extends QueryKey>(
  { queryClient }: Context,
  query: FetchQueryOptions<Data, Error, Data, Key>,
): Promise<void> {
  return queryClient.prefetchQuery(query);
}

/** How long the first view of a page load waits for its calls, at most, before it is shown with its loading state. */
const FIRST_VIEW_WAIT_MS = 1_000;
let firstViewShown = false;

/**
 * On a page load's first view, what its loader returns: these calls (or FIRST_VIEW_WAIT_MS), so that the view is
 * first rendered and painted with their answers at once, rather than painted loading and rendered again when they
 * come (on a slow phone, a long task after the first paint). Afterwards nothing: the next views show at once.
 */
function firstView(...calls: Promise<unknown>[]): Promise<void> | undefined {
  if (firstViewShown) return undefined;
  return Promise.race([Promise.all(calls), new Promise((resolve) => setTimeout(resolve, FIRST_VIEW_WAIT_MS))]).then(
    () => {},
  );
}

const child = <P extends string>(
  path: P,
  component: typeof OverviewView,
  load: (context: Context, params: Record<string, string>) => Promise<void> | undefined,
) =>
  createRoute({
    getParentRoute: () => consoleRoute,
    path,
    component,
    loader: ({ context, params }) => load(context, params as Record<string, string>),
  });

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
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    firstView(prefetch(context, transactionsQuery(context.client, deps.status, deps.page))),
});

const executeRoute = createRoute({
  getParentRoute: () => consoleRoute,
  path: '/execute/$functionId',
  component: ExecuteView,
  validateSearch: (search: Record<string, unknown>): { contractId: number } => ({
    contractId: Number(search.contractId) || 0,
  }),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    firstView(
      prefetch(context, activatedFunctionsQuery(context.client, deps.contractId)),
      prefetch(context, contractsQuery(context.client)),
    ),
});

const attemptsRoute = createRoute({
  getParentRoute: () => consoleRoute,
  path: '/webhooks/attempts',
  component: AttemptsView,
  validateSearch: (search: Record<string, unknown>): AttemptSearch => validateAttemptSearch(search),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    firstView(
      prefetch(context, attemptsQuery(context.client, { ...deps, limit: ATTEMPTS_PER_PAGE })),
      prefetch(context, endpointsQuery(context.client)),
      prefetch(context, subscriptionsQuery(context.client)),
    ),
});

/** The contracts, then each one's activated functions (the cards ask for them once the list is there). */
async function prefetchContracts(context: Context): Promise<void> {
  const { contracts } = await context.queryClient.ensureQueryData(contractsQuery(context.client));
  await Promise.all(contracts.map((c) => prefetch(context, activatedFunctionsQuery(context.client, c.id))));
}

const routeTree = rootRoute.addChildren([
  signInRoute,
  consoleRoute.addChildren([
    child('/', OverviewView, (c) => firstView(prefetch(c, statisticsQuery(c.client)))),
    // Balances are read from each network's node: the view shows them when they come, without waiting.
    child('/project', ProjectView, (c) => {
      void prefetch(c, walletBalancesQuery(c.client));
      return firstView(prefetch(c, membersQuery(c.client)));
    }),
    child('/contracts', ContractsView, (c) => firstView(prefetchContracts(c).catch(() => {}))),
    transactionsRoute,
    child('/transactions/$transactionId', TransactionDetailView, (c, params) =>
      firstView(prefetch(c, transactionQuery(c.client, params.transactionId as string))),
    ),
    executeRoute,
    child('/events', EventsView, (c) => firstView(prefetch(c, subscriptionsQuery(c.client)))),
    child('/events/$subscriptionId', RecordsView, (c, params) =>
      firstView(
        prefetch(c, recordsQuery(c.client, params.subscriptionId as string, 1)),
        prefetch(c, subscriptionsQuery(c.client)),
      ),
    ),
    child('/webhooks', WebhooksView, (c) => firstView(prefetch(c, endpointsQuery(c.client)))),
    attemptsRoute,
  ]),
]);

export const router = createRouter({ routeTree, basepath: '/console', context: { queryClient } });
const stopWatching = router.subscribe('onResolved', () => {
  firstViewShown = true;
  stopWatching();
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
