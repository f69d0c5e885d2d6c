import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { decodeCanonical } from '#api/crypto/canonicalBase64.ts';
import { BaseError } from '#api/errors/BaseError.ts';

/**
 * Claims of a Mountain access token (a JWT signed with HS256). A token names a user (`sub`), or the project API key
 * it was exchanged for (`akid`, exchange-api-key: the console's sign-in with a key), never both.
 */
export type AccessTokenClaims = UserTokenClaims | ApiKeyTokenClaims;

interface CommonClaims {
  iat: number;
  exp: number;
  /** The token's id: what `revoke-token` names. */
  jti: string;
}

export interface UserTokenClaims extends CommonClaims {
  /** The user id. */
  sub: string;
  /** The project the token is limited to, when it was issued for one. */
  pid?: number;
  akid?: never;
}

export interface ApiKeyTokenClaims extends CommonClaims {
  /** The id of the API key (`api_keys.id`) the token was exchanged for: it acts as that key, until it is rotated. */
  akid: number;
  /** The key's project, the only one the token acts in. */
  pid: number;
  sub?: never;
}

/** Whom a token is issued to: a user (limited to one project when given), or a project's API key. */
export type TokenSubject = { userId: number; projectId?: number } | { apiKeyId: number; projectId: number };

export class AccessTokenError extends BaseError {
  override name = 'AccessTokenError';
  readonly code = 'INVALID_ACCESS_TOKEN';
  constructor(
    readonly reason: 'malformed' | 'signature' | 'expired',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The id of a signing key, carried in the `kid` header of each token it signs: the first 8 bytes of the SHA-256
 * of the key's 32 bytes, in hex. It names the key without revealing it, so a token finds its key among the listed
 * ones, and an operator can tell which key signed a token.
 */
export function keyId(key: Buffer): string {
  let id = keyIds.get(key);
  if (id === undefined) {
    id = createHash('sha256').update(key).digest().subarray(0, 8).toString('hex');
    keyIds.set(key, id);
  }
  return id;
}
const keyIds = new WeakMap<Buffer, string>();

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const headerFor = (kid: string) => encode({ alg: 'HS256', typ: 'JWT', kid });
/** The header of tokens signed before key ids: such a token is checked against each listed key. */
const HEADER_WITHOUT_KID = encode({ alg: 'HS256', typ: 'JWT' });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function signature(key: Buffer, signingInput: string): Buffer {
  return createHmac('sha256', key).update(signingInput).digest();
}

export function signAccessToken(
  key: Buffer,
  input: TokenSubject & { expiresInSeconds: number; now?: number },
): { token: string; claims: AccessTokenClaims } {
  const iat = Math.floor((input.now ?? Date.now()) / 1000);
  const common = { iat, exp: iat + input.expiresInSeconds, jti: randomUUID() };
  const claims: AccessTokenClaims =
    'apiKeyId' in input
      ? { akid: input.apiKeyId, pid: input.projectId, ...common }
      : {
          sub: String(input.userId),
          ...(input.projectId !== undefined ? { pid: input.projectId } : {}),
          ...common,
        };
  const signingInput = `${headerFor(keyId(key))}.${encode(claims)}`;
  return { token: `${signingInput}.${signature(key, signingInput).toString('base64url')}`, claims };
}

/**
 * Verifies a token against the listed keys (the signing key and the previous ones still accepted): the key named by
 * the token's `kid`, or for a token from before key ids, each key in turn. A `kid` no listed key has is refused
 * like a signature that does not verify.
 */
export function verifyAccessToken(
  keys: Buffer | readonly Buffer[],
  token: string,
  now = Date.now(),
): AccessTokenClaims {
  const parts = token.split('.');
  if (parts.length !== 3) throw new AccessTokenError('malformed', 'not a Mountain access token');
  const [header, payload, sig] = parts as [string, string, string];
  const listed = Buffer.isBuffer(keys) ? [keys] : keys;
  const candidates = header === HEADER_WITHOUT_KID ? listed : listed.filter((k) => header === headerFor(keyId(k)));
  if (candidates.length === 0) {
    throw new AccessTokenError('signature', 'not a Mountain access token, or its key id is not a listed key');
  }
  // Only the canonical encoding of the signature: a `=` appended or the last character's unused bits set would
  // otherwise decode to the same bytes, and a changed token would verify. The header is compared as text and the
  // payload is signed as text, so neither has another form.
  const presented = decodeCanonical(sig, 'base64url');
  if (!presented) throw new AccessTokenError('malformed', 'the signature is not canonical base64url');
  const verifies = candidates.some((key) => {
    const expected = signature(key, `${header}.${payload}`);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
  if (!verifies) throw new AccessTokenError('signature', 'signature does not verify');
  let claims: AccessTokenClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new AccessTokenError('malformed', 'payload is not JSON');
  }
  const isId = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;
  const names =
    claims.akid === undefined
      ? typeof claims.sub === 'string' && /^\d+$/.test(claims.sub)
      : claims.sub === undefined && isId(claims.akid) && isId(claims.pid);
  if (
    !names ||
    typeof claims.exp !== 'number' ||
    typeof claims.iat !== 'number' ||
    typeof claims.jti !== 'string' ||
    !UUID.test(claims.jti)
  ) {
    throw new AccessTokenError('malformed', 'claims are incomplete');
  }
  if (claims.exp * 1000 <= now) throw new AccessTokenError('expired', 'token has expired');
  return claims;
}
