import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/** Claims of a Mountain access token (a JWT signed with HS256). */
export interface AccessTokenClaims {
  /** The user id. */
  sub: string;
  /** The project the token is limited to, when it was issued for one. */
  pid?: number;
  iat: number;
  exp: number;
  jti: string;
}

export class AccessTokenError extends Error {
  override name = 'AccessTokenError';
  constructor(
    readonly reason: 'malformed' | 'signature' | 'expired',
    message: string,
  ) {
    super(message);
  }
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function signature(key: Buffer, signingInput: string): Buffer {
  return createHmac('sha256', key).update(signingInput).digest();
}

export function signAccessToken(
  key: Buffer,
  input: { userId: number; projectId?: number; expiresInSeconds: number; now?: number },
): { token: string; claims: AccessTokenClaims } {
  const iat = Math.floor((input.now ?? Date.now()) / 1000);
  const claims: AccessTokenClaims = {
    sub: String(input.userId),
    ...(input.projectId !== undefined ? { pid: input.projectId } : {}),
    iat,
    exp: iat + input.expiresInSeconds,
    jti: randomUUID(),
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signingInput = `${HEADER}.${payload}`;
  return { token: `${signingInput}.${signature(key, signingInput).toString('base64url')}`, claims };
}

export function verifyAccessToken(key: Buffer, token: string, now = Date.now()): AccessTokenClaims {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) throw new AccessTokenError('malformed', 'not a Mountain access token');
  const [header, payload, sig] = parts as [string, string, string];
  const expected = signature(key, `${header}.${payload}`);
  const presented = Buffer.from(sig, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new AccessTokenError('signature', 'signature does not verify');
  }
  let claims: AccessTokenClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new AccessTokenError('malformed', 'payload is not JSON');
  }
  if (typeof claims.sub !== 'string' || !/^\d+$/.test(claims.sub) || typeof claims.exp !== 'number') {
    throw new AccessTokenError('malformed', 'claims are incomplete');
  }
  if (claims.exp * 1000 <= now) throw new AccessTokenError('expired', 'token has expired');
  return claims;
}
