import { createHash, type KeyObject, verify } from 'node:crypto';
import { AuthErrors } from './fireblocksErrors.ts';

/** What of a request its authentication covers. */
export interface SignedRequest {
  apiKey: string | undefined;
  authorization: string | undefined;
  /** The request target as sent: path (with /v1) and query string. */
  uri: string;
  rawBody: Buffer;
}

/** Nonces seen within their tokens' lifetimes, per API key; bounded. */
export class NonceCache {
  private readonly seen = new Map<string, number>();
  constructor(private readonly max = 100_000) {}

  /** False when `nonce` was already used by `apiKey` in a token not yet expired. */
  use(apiKey: string, nonce: string, expiresAtMs: number, now: number): boolean {
    const key = `${apiKey}\u0000${nonce}`;
    const until = this.seen.get(key);
    if (until !== undefined && until > now) return false;
    if (this.seen.size >= this.max) {
      for (const [k, exp] of this.seen) if (exp <= now) this.seen.delete(k);
      // Still full of live nonces: forget the oldest, as a bounded cache must.
      if (this.seen.size >= this.max) this.seen.delete(this.seen.keys().next().value as string);
    }
    this.seen.set(key, expiresAtMs);
    return true;
  }
}

/** Seconds a token's `iat` may be ahead of this clock before it counts as issued in the future. */
const IAT_SKEW_SECONDS = 5;

function decodeSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks a request as Fireblocks does (developers.fireblocks.com "Signing a request: JWT structure"): `X-API-Key`,
 * and `Authorization: Bearer <JWT>` signed RS256 with the API user's key, whose claims are `uri` (path with /v1 and
 * query), `nonce`, `iat`, `exp`, `sub` (the API key) and `bodyHash` (hex SHA-256 of the raw body, of "" without
 * one: @fireblocks/ts-sdk network/bearerTokenProvider.ts). Returns the API key, or throws the 401 Fireblocks answers.
 */
export function verifyApiRequest(
  request: SignedRequest,
  publicKeys: ReadonlyMap<string, KeyObject>,
  nonces: NonceCache,
  now = Date.now(),
): string {
  const apiKey = request.apiKey?.trim();
  if (!apiKey) throw AuthErrors.missingApiKey();
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.authorization?.trim() ?? '');
  if (!bearer?.[1]) throw AuthErrors.missingJwt();
  const [encodedHeader, encodedClaims, signature, ...rest] = bearer[1].split('.');
  if (encodedHeader === undefined || encodedClaims === undefined || signature === undefined || rest.length > 0) {
    throw AuthErrors.invalidFormat();
  }
  const header = decodeSegment(encodedHeader);
  const claims = decodeSegment(encodedClaims);
  if (!header || !claims || header.alg !== 'RS256') throw AuthErrors.invalidFormat();
  const publicKey = publicKeys.get(apiKey);
  if (!publicKey) throw AuthErrors.notAccepted();
  const signed = verify(
    'RSA-SHA256',
    Buffer.from(`${encodedHeader}.${encodedClaims}`),
    publicKey,
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) throw AuthErrors.invalidSignature();
  if (claims.sub !== apiKey) throw AuthErrors.wrongUser();
  if (claims.uri !== request.uri) throw AuthErrors.wrongUri();
  const nowSeconds = now / 1000;
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) throw AuthErrors.expired();
  if (typeof claims.iat !== 'number' || claims.iat > nowSeconds + IAT_SKEW_SECONDS) throw AuthErrors.issuedInFuture();
  const bodyHash = createHash('sha256').update(request.rawBody).digest('hex');
  if (claims.bodyHash !== bodyHash) throw AuthErrors.notAccepted();
  const nonce = claims.nonce;
  if ((typeof nonce !== 'string' && typeof nonce !== 'number') || String(nonce) === '') throw AuthErrors.notAccepted();
  if (!nonces.use(apiKey, String(nonce), claims.exp * 1000, now)) throw AuthErrors.notAccepted();
  return apiKey;
}
