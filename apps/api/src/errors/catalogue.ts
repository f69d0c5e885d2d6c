/**
 * Every error code the Public API can answer with. Codes are stable: clients may branch on them.
 * The docs page "Errors" is generated from this list (npm run openapi) and a test fails when they differ.
 */
/** The most wrong fields a VALIDATION_FAILED answer names: a crafted body can hold tens of thousands. */
export const MAX_FIELD_ERRORS = 20;

export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: {
    status: 400,
    message: 'The request is invalid: {summary}',
    description: `One or more fields are wrong. \`details\` lists each field with its JSON path and what is wrong, the first ${MAX_FIELD_ERRORS} of them; the message names them too and says how many more there are.`,
  },
  INVALID_JSON: {
    status: 400,
    message: 'The request body is not valid JSON',
    description: 'The body could not be parsed as JSON.',
  },
  WEBHOOK_URL_REFUSED: {
    status: 400,
    message: 'The webhook URL is refused: {reason}',
    description:
      'The webhook URL uses a port this deployment does not call (it calls 80, 443 and 1024–65535 unless configured otherwise), or its host is or resolves to an address that is not public: private, loopback, link-local or another special-purpose range, also when embedded in an IPv6 transition address (NAT64, 6to4, Teredo, IPv4-mapped…). The reason names the rule, not the address. `details` names the field.',
    example: { reason: 'its host resolves to a private address, which this deployment does not call' },
  },
  PROJECT_REQUIRED: {
    status: 400,
    message: 'Choose a project: send the X-Project-Id header',
    description: 'An access token of a user who belongs to several projects needs the `X-Project-Id` header.',
  },
  INVALID_PROJECT_ID: {
    status: 400,
    message: 'X-Project-Id must be a positive integer',
    description: 'The `X-Project-Id` header is not a project id.',
  },
  UNAUTHENTICATED: {
    status: 401,
    message: 'Authentication required: send an X-API-Key header or an Authorization: Bearer access token',
    description: 'No credentials were sent.',
  },
  INVALID_API_KEY: {
    status: 401,
    message: 'The API key is invalid or has been revoked',
    description: 'The `X-API-Key` is malformed, unknown, or was rotated away.',
  },
  INVALID_ACCESS_TOKEN: {
    status: 401,
    message: 'The access token is invalid',
    description:
      'The bearer token is malformed, its signature does not verify (or its signing key is no longer listed), ' +
      'it was revoked (or signed out: `revoke-access-token`), its user no longer exists, or the API key it was ' +
      'exchanged for was rotated.',
  },
  WEBHOOK_SIGNATURE_INVALID: {
    status: 401,
    message: 'The Fireblocks-Signature header is missing or does not verify with the configured Fireblocks webhook key',
    description:
      'Only on `POST /webhooks/fireblocks`: the body was not signed by Fireblocks (the key of `FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH`). Nothing was changed.',
  },
  WEBHOOK_TIMESTAMP_REFUSED: {
    status: 400,
    message:
      'The Fireblocks webhook’s timestamp {reason}: events are applied within 6 hours of their timestamp (the transaction’s status is polled regardless)',
    description:
      'Only on `POST /webhooks/fireblocks`: a signed transaction event whose `timestamp` is missing, more than 6 hours old (past Fireblocks’ last retry: a replayed or very late delivery) or more than 5 minutes ahead of the server’s clock. Nothing was changed; Fireblocks does not retry a 400.',
    example: { reason: 'is 412 minutes old' },
  },
  CONSOLE_LINK_REFUSED: {
    status: 401,
    message: 'The sign-in link {reason}: ask for a new one (mountain-admin console-link)',
    description:
      'Only on `exchange-console-link`: the link is unknown, was already used (a link signs in once), was revoked (its user’s tokens were revoked after it was made: `revoke-user-tokens`, `remove-member`), or has expired.',
    example: { reason: 'was already used' },
  },
  ACCESS_TOKEN_EXPIRED: {
    status: 401,
    message: 'The access token has expired',
    description: 'The bearer token is past its expiry. Issue a new one.',
  },
  FORBIDDEN: {
    status: 403,
    message: 'This operation requires one of the roles: {roles}',
    description: 'Your role in the project does not allow the operation. `requiredRoles` lists the roles that do.',
  },
  ACCESS_TOKEN_REQUIRED: {
    status: 403,
    message: 'This operation accepts only an access token (Authorization: Bearer), not an API key',
    description:
      'Project API keys cannot list projects, nor renew or revoke a token; use a user access token (a token exchanged for the API key does not list projects either).',
  },
  API_KEY_REQUIRED: {
    status: 403,
    message: 'This operation accepts only the project API key (X-API-Key), not an access token',
    description:
      'Only on `exchange-api-key`: a token is exchanged for the key itself, so no token, not even one made from the key, makes another.',
  },
  ACCESS_TOKEN_NOT_RENEWABLE: {
    status: 403,
    message: 'Only an access token exchanged for the project API key can be renewed',
    description:
      'Only on `renew-access-token`: a user’s token (issue-token, a console sign-in link) lives as long as it was issued for; ask for a new one.',
  },
  NOT_A_MEMBER: {
    status: 403,
    message: 'You are not a member of project {projectId}',
    description: 'The access token’s user has no role in the chosen project.',
  },
  NOT_FOUND: {
    status: 404,
    message: '{resource} {id} was not found',
    description: 'The object does not exist in your project. Objects of other projects are never visible.',
  },
  ROUTE_NOT_FOUND: {
    status: 404,
    message: 'Route {method} {url} does not exist',
    description: 'No operation is served at this method and path.',
  },
  CONFLICT: {
    status: 409,
    message: '{reason}',
    description: 'The request conflicts with the current state.',
    example: {
      reason:
        'Idempotency key "payout-2026-12-02-0042" was already used for a different request (transaction 6f1c2b7e-3d4a-4e8b-9c1d-2a3b4c5d6e7f); use a new key for a new transaction',
    },
  },
  SUBSCRIPTION_LIMIT_REACHED: {
    status: 409,
    message: 'Project {projectId} has {limit} event subscriptions, the most this deployment allows per project',
    description:
      'The project has as many subscriptions as the deployment allows (MAX_SUBSCRIPTIONS_PER_PROJECT, 100 by default); delete or reuse one, or ask the operator for a higher limit.',
  },
  WEBHOOK_ENDPOINT_LIMIT_REACHED: {
    status: 409,
    message: 'Project {projectId} has {limit} webhook endpoints, the most this deployment allows per project',
    description:
      'The project has as many webhook endpoints as the deployment allows (MAX_WEBHOOK_ENDPOINTS_PER_PROJECT, 50 by default); delete or reuse one (an endpoint takes several event types), or ask the operator for a higher limit.',
  },
  WALLET_LIMIT_REACHED: {
    status: 409,
    message: 'Project {projectId} would have {wanted} {networkType} system wallets; this deployment allows {limit}',
    description:
      'A pool has at most MAX_WALLETS_PER_PROJECT wallets per network type (64 by default), its primary wallet counted; add fewer, or ask the operator for a higher limit.',
    example: { wanted: '72', networkType: 'mainnet', limit: '64' },
  },
  FUNCTION_NOT_IN_ABI: {
    status: 422,
    message: 'Function {signature} is not in the ABI of contract {contractId}',
    description:
      'Only functions of the contract’s imported ABI can be activated. The signature (name and argument types) decides; argument names may differ.',
  },
  FUNCTION_NOT_STATE_CHANGING: {
    status: 422,
    message: 'Function {signature} is {mutability}: only nonpayable and payable functions can be activated',
    description: 'view and pure functions do not change state, so there is no transaction to send for them.',
    example: { signature: 'balanceOf(address)', mutability: 'view' },
  },
  FUNCTION_NOT_READABLE: {
    status: 400,
    message: 'Function {signature} is {mutability}: only view and pure functions can be read',
    description:
      'Only on `call-contract-function`: a function that changes state (nonpayable or payable) is executed with a transaction (activate it, then `execute-transaction`), not read.',
    example: { signature: 'mint(address,uint256)', mutability: 'nonpayable' },
  },
  CALL_REVERTED: {
    status: 422,
    message: 'The read reverts: {reason}',
    description:
      'Only on `call-contract-function`: the node ran the call (`eth_call`) at the block and it reverted. The message carries the decoded reason: the `Error(string)` message, a panic code, or a custom error of the contract’s ABI with its arguments.',
    example: { reason: 'TooHigh(9, 3)' },
  },
  CALL_RESULT_TOO_LARGE: {
    status: 422,
    message: 'The function returned {size} bytes, more than the {limit} bytes a read may answer',
    description:
      'Only on `call-contract-function`: the return data of the call is larger than the limit (64 KiB). Read a smaller part (a range, a page) of what the contract holds.',
    example: { size: '100032' },
  },
  BLOCK_NOT_REACHED: {
    status: 422,
    message: 'Block {blockNumber} is above the head of network {networkId} (block {head})',
    description:
      'Only on `call-contract-function`: the `blockTag` names a block the network has not produced yet. Read at `latest`, or at a block at or below the head.',
    example: { blockNumber: '20000', head: '19876', networkId: '1337' },
  },
  TRANSACTION_ALREADY_MINED: {
    status: 409,
    message:
      'Transaction {transactionId} is already mined ({status}, block {blockNumber}): it can no longer be replaced',
    description:
      'Only on `speed-up-transaction` and `cancel-transaction`: the transaction is in a block of the canonical chain, so nothing can take its nonce any more. Follow it to `finalized`.',
    example: { transactionId: '7f0c3c1e-2b0a-4e55-9a53-3b7f1f3c2d10', status: 'succeeded', blockNumber: '42' },
  },
  TRANSACTION_NOT_PENDING: {
    status: 409,
    message: 'Transaction {transactionId} is {status}: {reason}',
    description:
      'On `speed-up-transaction`: the transaction is not waiting in the network: it has not been sent yet (`created`, `processing`: it goes out at the network’s current fees anyway), it is being cancelled, or it ended without being mined. On `cancel-transaction`: it ended without being mined (`broadcast-failed`, `monitor-failed`, or `reverted` before it was sent): there is nothing left to cancel.',
    example: {
      transactionId: '7f0c3c1e-2b0a-4e55-9a53-3b7f1f3c2d10',
      status: 'created',
      reason: 'it has not been sent yet, and will be at the network’s current fees',
    },
  },
  FUNCTION_NOT_PAYABLE: {
    status: 400,
    message: 'Function {signature} is {mutability}: it cannot receive value, so {field} must be "0" or absent',
    description:
      'Only a `payable` function (or a contract’s `receive()`) takes value: `execute-transaction` with a `value` above 0, or `activate-contract-function` with a spending limit above 0, on any other function is refused. `details` names the field.',
    example: { signature: 'mint(address,uint256)', mutability: 'nonpayable', field: 'value' },
  },
  SPENDING_LIMIT_EXCEEDED: {
    status: 422,
    message:
      'The value {value} wei is over {limit} of function {signature} ({max} wei); {remainingToday} wei is left today (UTC)',
    description:
      'The transaction would send more than its function’s activation allows: `maxValuePerTransaction` for one transaction, or `maxValuePerDay` for all of the function’s transactions of the UTC day together (every accepted transaction counts, but those that ended without being mined). The message names the limit, its amount and what is left today; `details` names the field (`body.value`). Nothing is created. Send less, wait for the next UTC day, or activate the function again with higher limits.',
    example: {
      value: '2000000000000000000',
      limit: 'maxValuePerDay',
      signature: 'receive()',
      max: '5000000000000000000',
      remainingToday: '1000000000000000000',
    },
  },
  INSUFFICIENT_FUNDS: {
    status: 422,
    message:
      'The system wallet {address} holds {balance} wei on network {networkId}, less than the {value} wei to send',
    description:
      'The project’s system wallet cannot pay the transaction’s value: fund it (its address is in get-project-detail), then send again. Nothing is created.',
    example: {
      address: '0x5Df2b5A1f6b5a1cC2E3cA1F8d5B2A7c9E0F1a2B3',
      balance: '0',
      networkId: '11155111',
      value: '1000000000000000',
    },
  },
  FUNCTION_NOT_ACTIVE: {
    status: 422,
    message: 'Function {signature} of contract {contractId} is not active: activate it before executing it',
    description: 'Only activated functions can be executed; this one was deactivated.',
  },
  NETWORK_NOT_CONFIGURED: {
    status: 422,
    message: 'Network {networkId} is not configured on this deployment: set RPC_URL_{networkId}',
    description:
      'The call needs the chain, and this deployment has no JSON-RPC endpoint for the network. The operator sets `RPC_URL_<networkId>`.',
  },
  CUSTODY_NOT_CONFIGURED: {
    status: 422,
    message: '{reason}',
    description:
      "The project's system wallet is kept by a custodian (Fireblocks) that this deployment cannot use for the call: its credentials are not configured (`FIREBLOCKS_API_KEY`), or the network has no custodian asset (`FIREBLOCKS_ASSET_ID_<networkId>`). The message names the variable the operator sets.",
    example: {
      reason:
        'Network 11155111 has no Fireblocks asset on this deployment: set FIREBLOCKS_ASSET_ID_11155111 to the asset id of its native coin in your workspace',
    },
  },
  EXECUTION_REVERTED: {
    status: 422,
    message: 'The call reverts: {reason}',
    description:
      'The transaction was simulated (`eth_call` from the system wallet) and reverted, so nothing was created or queued. The message carries the decoded revert reason or custom error.',
    example: { reason: 'ERC20InsufficientBalance(0x4b0897b0513fdc7c541b6d9d7e929c4e5364d2db, 0, 1000)' },
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'The request body is larger than {limit} bytes',
    description: 'Bodies are limited in size.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'Content-Type {contentType} is not supported: send application/json',
    description: 'Request bodies must be JSON.',
  },
  UNSUPPORTED_CONTENT_ENCODING: {
    status: 415,
    message: 'Content-Encoding {encoding} is not supported: send the body uncompressed',
    description: 'Request bodies are not decompressed (gzip, deflate, br…): send plain JSON.',
  },
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests: retry after {retryAfter} s',
    description:
      'The API key or access token sent more requests than its limit, or this address sent too many requests that failed authentication. Wait for the number of seconds in the `Retry-After` header.',
  },
  INTERNAL_ERROR: {
    status: 500,
    message: 'An internal error occurred (request id {requestId})',
    description: 'Something failed on our side. Quote the request id when you contact support.',
  },
  CHAIN_UNAVAILABLE: {
    status: 503,
    message: 'The RPC endpoint of network {networkId} did not answer: {reason}',
    description: 'The network’s JSON-RPC endpoint is unreachable or failing. Nothing was created; retry later.',
    example: { reason: 'the endpoint is unreachable' },
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The service is temporarily unavailable: {reason}',
    description: 'A dependency (database or chain) is unreachable. Retry later.',
    example: { reason: 'the database is unreachable' },
  },
} as const satisfies Record<
  string,
  {
    status: number;
    message: string;
    description: string;
    /** What the API reference's example answer puts in the message's placeholders that are the code's own. */
    example?: Record<string, string>;
  }
>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The reason phrase for each status we use, as in the `error` field of every error body. */
export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};
