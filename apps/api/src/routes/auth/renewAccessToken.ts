import { renewApiKeyToken } from '#api/auth/apiKeyTokens.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { defineRoute } from '#api/http/route.ts';
import { SessionToken, sessionTokenAnswer, sessionTokenExample } from './sessionToken.ts';

export default defineRoute({
  method: 'POST',
  url: '/auth/renew-access-token',
  operationId: 'renew-access-token',
  tag: 'Project',
  summary: 'Renew an access token exchanged for the project API key',
  description:
    'Called with a token from `exchange-api-key` (or a renewal of one), answers a new token of the same session for ' +
    '15 minutes more, never past the session’s end, 12 hours after the key was exchanged; then the key is needed ' +
    'again. The token it was called with stays valid until its own expiry, so requests already sent with it still ' +
    'succeed; `revoke-access-token` ends both. The console renews while its tab is used. A user’s token is not ' +
    'renewable.',
  auth: { roles: [], ownToken: 'apiKey' },
  response: {
    status: 201,
    description: 'A new token of the same session.',
    schema: SessionToken,
    example: sessionTokenExample,
  },
  errors: ['ACCESS_TOKEN_NOT_RENEWABLE'],
  async handler({ principal, deps }) {
    if (principal.kind !== 'ownToken' || principal.claims.akid === undefined) {
      throw new Error('renew-access-token runs for a token of an API key only');
    }
    const renewed = await renewApiKeyToken(deps.db, deps.tokenSigningKey, principal.claims);
    if (!renewed.ok) throw new ApiError(renewed.reason === 'ended' ? 'ACCESS_TOKEN_EXPIRED' : 'INVALID_ACCESS_TOKEN');
    return sessionTokenAnswer(renewed.issued);
  },
});
