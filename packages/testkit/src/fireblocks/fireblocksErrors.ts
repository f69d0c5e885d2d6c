/**
 * Fireblocks' error answers: HTTP status and a `{ message, code }` body (ErrorSchema in @fireblocks/ts-sdk).
 *
 * Sources: the API reference's "API responses and error codes" table (developers.fireblocks.com/reference/api-error-codes)
 * for the codes; Fireblocks' support articles "401 Error: … (code -N)" for the exact 401 messages of −1, −7, −10, −12;
 * the API idempotency guide for 1438's message; the changelog "Change in Idempotency-Key header from Error 500 to 400"
 * for the idempotency message. Where Fireblocks documents a code but not its message, the message is the table's
 * wording; where it documents neither (marked UNDOCUMENTED), the code is the nearest documented one.
 */
export class FireblocksApiError extends Error {
  override readonly name = 'FireblocksApiError';
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }

  body(): { message: string; code?: number } {
    return this.code === undefined ? { message: this.message } : { message: this.message, code: this.code };
  }
}

const error = (status: number, code: number | undefined, message: string) => () =>
  new FireblocksApiError(status, code, message);

/** The 401s of authentication, by cause. */
export const AuthErrors = {
  /** Support article 8928210868380: `{ message: 'invalid signature', code: -1 }`. */
  invalidSignature: error(401, -1, 'invalid signature'),
  /** Table: "-2 Missing API Key in the JWT". */
  missingApiKey: error(401, -2, 'Missing API Key'),
  /** Table: "-3 The entire JWT is missing". */
  missingJwt: error(401, -3, 'The entire JWT is missing'),
  /** Table: "-4 Wrong URL in the JWT" (the `uri` claim is not this request's path and query). */
  wrongUri: error(401, -4, 'Wrong URL in the JWT'),
  /** Table: "-5 Unauthorized: Invalid token format". */
  invalidFormat: error(401, -5, 'Unauthorized: Invalid token format'),
  /** Table: "-6 Wrong User in the JWT" (`sub` is not the X-API-Key). */
  wrongUser: error(401, -6, 'Wrong User in the JWT'),
  /**
   * Support article 10570293455388: `{ message: 'Unauthorized: Token was not accepted.', code: -7 }`, "the wrong API
   * key … or an error with your JWT creation logic". Used for an unknown API key, and (UNDOCUMENTED which code) for a
   * body hash that does not match the body and for a nonce used before: the docs only say "each API request must
   * have a unique nonce" and that `bodyHash` is the hash of the raw body.
   */
  notAccepted: error(401, -7, 'Unauthorized: Token was not accepted.'),
  /** Support article 8927972341020. */
  expired: error(401, -10, 'The request has expired.'),
  /** Support article 8928497562268. */
  issuedInFuture: error(401, -12, 'The request is with a future issuance timestamp (iat).'),
};

export const ApiErrors = {
  /** API idempotency guide: a second create with the same externalTxId. */
  duplicateExternalTxId: error(400, 1438, 'The external tx id that was provided in the request, already exists'),
  /** Changelog, January 2023: the same Idempotency-Key after an answer of 5xx. Code UNDOCUMENTED. */
  idempotencyAfterInternalError: error(
    400,
    undefined,
    "This operation doesn't support the usage of the same idempotency key after an internal error",
  ),
  /** Table: "1004 404 Vault account Id was not found". */
  vaultNotFound: (id: string) => new FireblocksApiError(404, 1004, `Vault account ${id} was not found`),
  /** Table: "1006 404 Asset doesn't exist". */
  assetNotFound: (assetId: string) => new FireblocksApiError(404, 1006, `Asset ${assetId} doesn't exist`),
  /** Table: "1000 400 GetVaultAccounts request has invalid values". */
  vaultQueryInvalid: (what: string) => new FireblocksApiError(400, 1000, `Invalid values: ${what}`),
  /** Table: "1002 400 Create Vault Account failed". */
  vaultCreateFailed: (what: string) => new FireblocksApiError(400, 1002, `Create Vault Account failed: ${what}`),
  /** Table: "1013 400 Vault account renaming failed". */
  vaultRenameFailed: (what: string) => new FireblocksApiError(400, 1013, `Vault account renaming failed: ${what}`),
  /** A transaction request Fireblocks refuses (400; its per-field codes are UNDOCUMENTED in the public table). */
  badTransaction: (what: string) => new FireblocksApiError(400, undefined, what),
  /** No such transaction (404). */
  transactionNotFound: (id: string) => new FireblocksApiError(404, undefined, `Transaction ${id} not found`),
  notFound: (what: string) => new FireblocksApiError(404, undefined, `Not found: ${what}`),
  badRequest: (what: string) => new FireblocksApiError(400, undefined, what),
  bodyTooLarge: (limit: number) => new FireblocksApiError(413, undefined, `Request body larger than ${limit} bytes`),
  /** 429: "Too many requests hit the API too quickly" (HTTP status summary; no body or Retry-After documented). */
  rateLimited: error(429, undefined, 'Too Many Requests'),
  internal: error(500, undefined, 'Internal server error'),
};
