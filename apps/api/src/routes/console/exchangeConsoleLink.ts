import Type from 'typebox';
import { CONSOLE_LINK_CODE, exchangeConsoleLink } from '#api/auth/consoleLinks.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { defineRoute } from '#api/http/route.ts';

const REASONS = {
  unknown: 'is not known',
  used: 'was already used',
  revoked: 'was revoked (its user’s tokens were revoked after it was made)',
  expired: 'has expired',
} as const;

export default defineRoute({
  method: 'POST',
  url: '/console/exchange-console-link',
  operationId: 'exchange-console-link',
  tag: 'Project',
  summary: 'Exchange a console sign-in link for an access token',
  description:
    'Takes the code of a one-time sign-in link printed by `mountain-admin console-link --user <email>` and answers ' +
    'an access token for that user (12 hours; limited to the link’s project when it names one). A link signs in ' +
    'once, within its lifetime (15 minutes unless the command says otherwise), and not after its user’s tokens were ' +
    'revoked (`revoke-user-tokens`, `remove-member`). Needs no credentials: each call counts against the ' +
    'caller’s address, in a limit of its own (as many a minute as refused authentications), so that refused ' +
    'requests from an address never keep its people from signing in.',
  auth: { roles: [], anonymous: true },
  body: Type.Object(
    {
      code: Type.String({
        pattern: CONSOLE_LINK_CODE.source,
        description: 'The code of the link: what follows `#code=` in its address (43 characters).',
      }),
    },
    { additionalProperties: false },
  ),
  requestExample: { code: 'Zb3o0pJ1cI4VQ2l8m0k5rXw7yT9sA6dF1gH3jK5lM7n' },
  response: {
    status: 200,
    description: 'An access token for the link’s user.',
    schema: Type.Object({
      accessToken: Type.String({ description: 'A bearer access token (Authorization: Bearer).' }),
      expiresAt: Type.String({ format: 'date-time', description: 'When the access token expires.' }),
      projectId: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
        description: 'The project the token is limited to, or null when the user may choose (X-Project-Id).',
      }),
    }),
    example: {
      accessToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…',
      expiresAt: '2026-01-01T12:00:00.000Z',
      projectId: 1,
    },
  },
  errors: ['CONSOLE_LINK_REFUSED'],
  async handler({ body, deps }) {
    const outcome = await exchangeConsoleLink(deps.db, deps.tokenSigningKey, body.code);
    if (!outcome.ok) throw new ApiError('CONSOLE_LINK_REFUSED', { reason: REASONS[outcome.reason] });
    return {
      accessToken: outcome.accessToken,
      expiresAt: outcome.expiresAt.toISOString(),
      projectId: outcome.projectId,
    };
  },
});
