import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { KmsErrors } from './kmsErrors.ts';

/** An IAM principal the simulated account knows, with the access key it signs with. */
export interface KmsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS) come with a token, sent as `X-Amz-Security-Token` and signed. */
  sessionToken?: string;
  /** `arn:aws:iam::<account>:user/<name>`, named in AccessDeniedException. */
  userArn: string;
  /** KMS actions its policy does not allow (e.g. `CreateKey`): refused with AccessDeniedException. */
  deniedActions?: string[];
}

export interface SignedRequest {
  method: string;
  /** The request target as sent: path and query. */
  target: string;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** How far a request's X-Amz-Date may be from the service's clock (AWS: 5 minutes). */
const SKEW_MS = 5 * 60_000;

/**
 * Verifies a request's Signature Version 4 (`Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…,
 * Signature=…`) as AWS does: the access key must be known (UnrecognizedClientException), the scope must be
 * `<date>/<region>/kms/aws4_request`, the time within 5 minutes, and the signature recomputed from the canonical
 * request with the key's secret must match (InvalidSignatureException). Answers the caller.
 */
export function verifySigV4(
  request: SignedRequest,
  users: ReadonlyMap<string, KmsCredentials>,
  region: string,
  now = new Date(),
): KmsCredentials {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const authorization = header('authorization');
  if (!authorization) throw KmsErrors.missingToken();
  const match = /^AWS4-HMAC-SHA256 (.*)$/.exec(authorization.trim());
  if (!match) throw KmsErrors.incompleteSignature("'Credential', 'SignedHeaders' and 'Signature' parameters");
  const parts = new Map<string, string>();
  for (const part of (match[1] as string).split(',')) {
    const at = part.indexOf('=');
    if (at > 0) parts.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const credential = parts.get('Credential');
  const signedHeaders = parts.get('SignedHeaders');
  const signature = parts.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    throw KmsErrors.incompleteSignature("'Credential', 'SignedHeaders' and 'Signature' parameters");
  }
  const [accessKeyId, date, scopeRegion, service, terminator] = credential.split('/');
  const user = accessKeyId ? users.get(accessKeyId) : undefined;
  if (!user) throw KmsErrors.unrecognizedClient();
  if (user.sessionToken !== undefined && header('x-amz-security-token') !== user.sessionToken) {
    throw KmsErrors.unrecognizedClient();
  }
  const amzDate = header('x-amz-date');
  if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    throw KmsErrors.incompleteSignature('a valid X-Amz-Date or Date header');
  }
  if (terminator !== 'aws4_request') {
    throw KmsErrors.badScope("Credential should be scoped with a valid terminator: 'aws4_request'. ");
  }
  if (service !== 'kms') throw KmsErrors.badScope("Credential should be scoped to correct service: 'kms'. ");
  if (date !== amzDate.slice(0, 8)) {
    throw KmsErrors.badScope(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${date}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
    );
  }
  if (scopeRegion !== region) throw KmsErrors.badScope('Credential should be scoped to a valid region. ');
  const signedAt = Date.parse(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const stamp = (ms: number) =>
    new Date(ms)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
  if (signedAt < now.getTime() - SKEW_MS) {
    throw KmsErrors.signatureExpired(amzDate, stamp(now.getTime()), stamp(now.getTime() - SKEW_MS));
  }
  if (signedAt > now.getTime() + SKEW_MS) {
    throw KmsErrors.signatureNotYetCurrent(amzDate, stamp(now.getTime()), stamp(now.getTime() + SKEW_MS));
  }
  const names = signedHeaders.split(';');
  if (!names.includes('host')) throw KmsErrors.incompleteSignature("the 'host' header to be signed");

  const url = new URL(request.target, 'http://localhost');
  const canonicalUri = url.pathname
    .split('/')
    .map((segment) => encodeRfc3986(segment))
    .join('/');
  const canonicalQuery = [...url.searchParams.entries()]
    .map(([k, v]) => [encodeRfc3986(k), encodeRfc3986(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = names
    .map((name) => `${name}:${(header(name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const payloadHash = header('x-amz-content-sha256') ?? sha256Hex(request.body);
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${date}/${scopeRegion}/${service}/${terminator}`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(Buffer.from(canonicalRequest))].join('\n');
  const expected = hmac(signingKey(user.secretAccessKey, date as string, region), stringToSign);
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw KmsErrors.invalidSignature();
  // A body whose hash was signed in a header must be that body.
  if (header('x-amz-content-sha256') && payloadHash !== sha256Hex(request.body)) throw KmsErrors.invalidSignature();
  return user;
}

/** Signing keys derived (four HMACs) per secret, day and region, as AWS and the SDK keep them: one a day per key. */
const signingKeys = new Map<string, Buffer>();

function signingKey(secret: string, date: string, region: string): Buffer {
  const id = `${date}/${region}/${secret}`;
  let key = signingKeys.get(id);
  if (!key) {
    key = hmac(`AWS4${secret}`, date);
    for (const step of [region, 'kms', 'aws4_request']) key = hmac(key, step);
    if (signingKeys.size >= 256) signingKeys.clear();
    signingKeys.set(id, key);
  }
  return key;
}

function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** RFC 3986 percent-encoding of everything but unreserved characters, as SigV4's canonical forms want. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
