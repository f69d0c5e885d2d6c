import Type from 'typebox';
import type { IssuedSessionToken } from '#api/auth/apiKeyTokens.ts';

/** The answer of exchange-api-key and renew-access-token: a token that acts as the project API key. */
export const SessionToken = Type.Object({
  accessToken: Type.String({
    description: 'A bearer access token (Authorization: Bearer) that acts as the project API key, for 15 minutes.',
  }),
  expiresAt: Type.String({ format: 'date-time', description: 'When the access token expires.' }),
  expiresIn: Type.Integer({
    minimum: 0,
    description: 'Seconds until it expires (at most 900), for a client whose clock may differ from the server’s.',
  }),
  projectId: Type.Integer({ minimum: 1, description: 'The key’s project, the only one the token acts in.' }),
  sessionEndsAt: Type.String({
    format: 'date-time',
    description: 'The latest a renewal can expire: 12 hours after the key was exchanged.',
  }),
});

export const sessionTokenExample = {
  accessToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjNmOWEuLi4ifQ…',
  expiresAt: '2026-01-01T09:15:00.000Z',
  expiresIn: 900,
  projectId: 1,
  sessionEndsAt: '2026-01-01T21:00:00.000Z',
};

export const sessionTokenAnswer = (issued: IssuedSessionToken) => ({
  accessToken: issued.accessToken,
  expiresAt: issued.expiresAt.toISOString(),
  expiresIn: Math.max(0, Math.round((issued.expiresAt.getTime() - Date.now()) / 1000)),
  projectId: issued.projectId,
  sessionEndsAt: issued.sessionEndsAt.toISOString(),
});
