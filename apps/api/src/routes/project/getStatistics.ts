import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { STATISTICS_HOURS, transactionsPerHour } from '#api/projects/statistics.ts';
import { ROLES } from '#api/projects/users.ts';

const count = (description: string) => Type.Integer({ minimum: 0, description });

const TransactionHour = Type.Object({
  hour: Type.String({ format: 'date-time', description: 'Start of the hour, UTC.' }),
  succeeded: count('Created in this hour and succeeded.'),
  reverted: count('Created in this hour and reverted on chain.'),
  failed: count('Created in this hour and failed (broadcast-failed or monitor-failed).'),
  pending: count('Created in this hour and not final yet (created, processing or broadcasted).'),
});

export default defineRoute({
  method: 'GET',
  url: '/project/get-statistics',
  operationId: 'get-statistics',
  tag: 'Project',
  summary: 'Get your project’s activity of the last 24 hours',
  description:
    'Transactions created in each of the last 24 hours (the current hour included, oldest first), counted by ' +
    'where they ended: succeeded, reverted, failed, or still pending. Always 24 entries. The count reads the ' +
    'project’s transactions of that day through an index: its cost follows that day’s activity, never the history.',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'The project’s statistics.',
    schema: Type.Object({
      statistics: Type.Object({
        transactionsPerHour: Type.Array(TransactionHour, { minItems: STATISTICS_HOURS, maxItems: STATISTICS_HOURS }),
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
      },
    },
  },
  errors: [],
  async handler({ principal, deps }) {
    return { statistics: { transactionsPerHour: await transactionsPerHour(deps.db, projectOf(principal)) } };
  },
});
