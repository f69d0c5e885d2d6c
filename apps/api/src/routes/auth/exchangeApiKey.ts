import { exchangeApiKey } from '#api/auth/apiKeyTokens.ts';
import { defineRoute } from '#api/http/route.ts';
import { SessionToken, sessionTokenAnswer, sessionTokenExample } from './sessionToken.ts';

export default defineRoute({
  method: 'POST',
  url: '/auth/exchange-api-key',
  operationId: 'exchange-api-key',
  tag: 'Project',
  summary: 'Exchange the project API key for a short-lived access token',
  description:
    'Answers an access token that acts as the `X-API-Key` it was called with (admin of the key’s project, that ' +
    'project only) for 15 minutes, renewable with `renew-access-token` for up to 12 hours. The developer console ' +
    'signs in this way and keeps only the token, never the key. The token is refused once the key is rotated ' +
    '(`rotate-api-key`) or the token is signed out (`revoke-access-token`). Only the API key itself is accepted: a ' +
    'token cannot make another.',
  auth: { roles: ['admin'], apiKeyOnly: true },
  response: {
    status: 201,
    description: 'A token acting as the project API key.',
    schema: SessionToken,
    example: sessionTokenExample,
  },
  errors: ['API_KEY_REQUIRED'],
  async handler({ principal, deps }) {
    if (principal.kind !== 'apiKey') throw new Error('exchange-api-key runs for an API key only');
    const issued = await exchangeApiKey(deps.db, deps.tokenSigningKey, {
      apiKeyId: principal.apiKeyId,
      projectId: principal.projectId,
    });
    return sessionTokenAnswer(issued);
  },
});
