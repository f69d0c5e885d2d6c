import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { STATISTICS_HOURS, transactionsPerHour, webhookAttemptsPerHour } from '#api/projects/statistics.ts';
import { ROLES } from '#api/projects/users.ts';

const count = (description: string) => Type.Integer({ minimum: 0, description });

const TransactionHour = Type.Object({
  hour: Type.String({ format: 'date-time', description: 'Start of the hour, UTC.' }),
  succeeded: count('Created in this hour and succeeded.'),
  reverted: count('Created in this hour and reverted on chain.'),
  failed: count('Created in this hour and failed (broadcast-failed or monitor-failed).'),
  pending: count('Created in this hour and not final yet (created, processing or broadcasted).'),
});

const WebhookAttemptHour = Type.Object({
  hour: Type.String({ format: 'date-time', description: 'Start of the hour, UTC.' }),
  delivered: count('Attempts made in this hour that the receiver answered with a 2xx.'),
  httpError: count('Attempts answered with another HTTP status.'),
  timeout: count('Attempts the receiver did not answer in time.'),
  connectionError: count('Attempts that could not connect (refused, reset, DNS, TLS).'),
  refused: count('Attempts not made because the URL policy refused the address.'),
});

export default defineRoute({
  method: 'GET',
  url: '/project/get-statistics',
  operationId: 'get-statistics',
  tag: 'Project',
  summary: 'Get your project’s activity of the last 24 hours',
  description:
    'Transactions created in each of the last 24 hours (the current hour included, oldest first), counted by ' +
    'where they ended: succeeded, reverted, failed, or still pending; and the webhook attempts made in each of ' +
    'those hours (to the project’s endpoints and subscriptions’ webhooks), counted by outcome as the attempt log ' +
    'records them. Always 24 entries each. The counts read that day’s rows of the project through an index: ' +
    'their cost follows that day’s activity, never the history.',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'The project’s statistics.',
    schema: Type.Object({
      statistics: Type.Object({
        transactionsPerHour: Type.Array(TransactionHour, { minItems: STATISTICS_HOURS, maxItems: STATISTICS_HOURS }),
        webhookAttemptsPerHour: Type.Array(WebhookAttemptHour, {
          minItems: STATISTICS_HOURS,
          maxItems: STATISTICS_HOURS,
        }),
      }),
    }),
    example: {
      statistics: {
        transactionsPerHour: Array.from({ length: STATISTICS_HOURS }, (_, i) => ({
          hour: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
          succeeded: i % 5,
          reverted: i % 7 === 0 ? 1 : 0,
          failed: 0,
          pending: i === STATISTICS_HOURS - 1 ? 2 : 0,
        })),
        webhookAttemptsPerHour: Array.from({ length: STATISTICS_HOURS }, (_, i) => ({
          hour: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
          delivered: 2 * (i % 5),
          httpError: i === 9 ? 3 : 0,
          timeout: i === 9 ? 1 : 0,
          connectionError: 0,
          refused: 0,
        })),
      },
    },
  },
  errors: [],
  async handler({ principal, deps }) {
    const projectId = projectOf(principal);
    const now = new Date();
    const [transactions, attempts] = await Promise.all([
      transactionsPerHour(deps.db, projectId, now),
      webhookAttemptsPerHour(deps.db, projectId, now),
    ]);
    return { statistics: { transactionsPerHour: transactions, webhookAttemptsPerHour: attempts } };
  },
});
