import Type from 'typebox';
import { revokeOwnToken } from '#api/auth/revocation.ts';
import { defineRoute } from '#api/http/route.ts';

export default defineRoute({
  method: 'POST',
  url: '/auth/revoke-access-token',
  operationId: 'revoke-access-token',
  tag: 'Project',
  summary: 'Sign out: revoke the access token you call with',
  description:
    'Revokes the bearer token of the call, on every API process from this answer on: a user’s token (from ' +
    '`issue-token` or a console sign-in link), or a token exchanged for the API key together with every renewal ' +
    'of its session. The console’s Sign out calls it. Needs no role, and works in no project: any valid token may ' +
    'end itself. Calling it again with the same token answers 401 `INVALID_ACCESS_TOKEN`.',
  auth: { roles: [], ownToken: 'any' },
  response: {
    status: 200,
    description: 'The token is revoked.',
    schema: Type.Object({ message: Type.String({ description: 'What was revoked.' }) }),
    example: { message: 'The access token is revoked' },
  },
  errors: [],
  async handler({ principal, deps }) {
    if (principal.kind !== 'ownToken') throw new Error('revoke-access-token runs for a token only');
    await revokeOwnToken(deps.db, principal.claims);
    return {
      message:
        principal.claims.akid !== undefined
          ? 'The access token and every renewal of its session are revoked'
          : 'The access token is revoked',
    };
  },
});
