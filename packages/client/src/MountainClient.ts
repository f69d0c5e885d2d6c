// One method per operation of the Public API (named from its operationId), plus the transaction helpers.
import type { MethodName, QueryParams, RequestBody, ResponseBody } from './operations.ts';
import { OPERATIONS } from './operations.ts';
import {
  type ClientConfig,
  type MountainClientOptions,
  parseOptions,
  parseRequestOptions,
  type RequestOptions,
} from './options.ts';
import { sendRequest } from './request.ts';
import {
  type IterateTransactionsOptions,
  iterateTransactions,
  type WaitForTransactionOptions,
  waitForTransaction,
} from './transactions.ts';
import type { Transaction } from './types.ts';

/** Query of a paginated operation: `page` and `perPage` have server defaults (page 1; see each operation). */
type PageQuery<Id extends 'get-projects' | 'get-transactions' | 'get-subscriptions'> = Omit<
  QueryParams<Id>,
  'page' | 'perPage'
> &
  Partial<Pick<QueryParams<Id>, 'page' | 'perPage'>>;

/**
 * The typed client of the Mountain Public API v3. Authenticate with a project `apiKey`, or a user
 * `accessToken` (with `projectId` when the user belongs to several projects). Calls retry connection errors,
 * timeouts, 429 and 5xx (not 501) with exponential backoff and jitter, honouring `Retry-After`, and reject with a
 * `MountainError` subclass. The last argument of every method overrides `timeout`, `signal` and `maxRetries`.
 *
 * @example
 * ```ts
 * import { MountainClient } from '@mountain/public-api-client';
 *
 * const client = new MountainClient({ apiKey: 'mtn_test_…' });
 * const { data } = await client.getProjectDetail();
 * console.log(data.project.projectName, data.mSystemWalletTestnet.address);
 * ```
 */
export class MountainClient {
  readonly #config: ClientConfig;

  constructor(options: MountainClientOptions) {
    this.#config = parseOptions(options);
  }

  /** The API root this client calls. */
  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  async #call<Name extends MethodName>(
    name: Name,
    input: { query?: object | undefined; body?: unknown },
    options: RequestOptions | undefined,
  ): Promise<ResponseBody<(typeof OPERATIONS)[Name]['operationId']>> {
    const checked = parseRequestOptions(options);
    if (checked.idempotencyKey !== undefined && name !== 'executeTransaction') {
      throw new TypeError(`idempotencyKey is an option of executeTransaction only, not of ${name}`);
    }
    const { method, path } = OPERATIONS[name];
    const query = input.query as Record<string, string | number | boolean | undefined> | undefined;
    return sendRequest(this.#config, { method, path, query, body: input.body }, checked);
  }

  /**
   * get-projects: the projects of the access token's user, one page (access tokens only).
   * @example
   * ```ts
   * const { data, meta } = await client.getProjects({ page: 1, perPage: 20 });
   * ```
   */
  getProjects(query: PageQuery<'get-projects'> = {}, options?: RequestOptions) {
    return this.#call('getProjects', { query }, options);
  }

  /**
   * get-project-detail: the project the credentials act in, with its mainnet and testnet system wallets.
   * @example
   * ```ts
   * const { data: { project, mSystemWalletTestnet }, caller } = await client.getProjectDetail();
   * ```
   */
  getProjectDetail(options?: RequestOptions) {
    return this.#call('getProjectDetail', {}, options);
  }

  /**
   * get-project-members: the project's users with their role.
   * @example
   * ```ts
   * const { members } = await client.getProjectMembers();
   * ```
   */
  getProjectMembers(options?: RequestOptions) {
    return this.#call('getProjectMembers', {}, options);
  }

  /**
   * rotate-api-key: revoke the project's API key and get a new one, shown this once (admins only). A client made
   * with the old key is refused from then on: make a new one with the answer.
   * @example
   * ```ts
   * const { apiKey } = await client.rotateApiKey();
   * const next = new MountainClient({ apiKey });
   * ```
   */
  rotateApiKey(options?: RequestOptions) {
    return this.#call('rotateApiKey', {}, options);
  }

  /**
   * add-system-wallets: more wallets of the project's custody type in its pool of a network type (admins only);
   * execute-transaction then spreads the project's transactions over them. New wallets hold nothing: fund them.
   * @example
   * ```ts
   * const { data } = await client.addSystemWallets({ networkType: 'mainnet', count: 7 });
   * const pool = data.mSystemWallets.filter((wallet) => wallet.networkType === 'mainnet');
   * ```
   */
  addSystemWallets(body: RequestBody<'add-system-wallets'>, options?: RequestOptions) {
    return this.#call('addSystemWallets', { body }, options);
  }

  /**
   * get-statistics: the project's transactions created in each of the last 24 hours, by where they ended, and its
   * webhook attempts of those hours, by outcome.
   * @example
   * ```ts
   * const { statistics } = await client.getStatistics();
   * for (const { hour, succeeded, failed } of statistics.transactionsPerHour) console.log(hour, succeeded, failed);
   * ```
   */
  getStatistics(options?: RequestOptions) {
    return this.#call('getStatistics', {}, options);
  }

  /**
   * get-wallet-balances: each system wallet's native-coin balance (wei) on the networks of its type.
   * @example
   * ```ts
   * const { balances } = await client.getWalletBalances();
   * ```
   */
  getWalletBalances(options?: RequestOptions) {
    return this.#call('getWalletBalances', {}, options);
  }

  /**
   * exchange-console-link: trade the code of a one-time console sign-in link (`mountain-admin console-link`) for
   * an access token. Needs no credentials, so it is called on the class.
   * @example
   * ```ts
   * const { accessToken, projectId } = await MountainClient.exchangeConsoleLink({ code }, { baseUrl });
   * const client = new MountainClient({ accessToken, ...(projectId ? { projectId } : {}), baseUrl });
   * ```
   */
  static exchangeConsoleLink(
    body: RequestBody<'exchange-console-link'>,
    clientOptions: Omit<MountainClientOptions, 'apiKey' | 'accessToken' | 'projectId'> = {},
    options?: RequestOptions,
  ): Promise<ResponseBody<'exchange-console-link'>> {
    // The client's checks need a credential; this call sends none (the link's code is the credential).
    const parsed = parseOptions({ ...clientOptions, accessToken: '-' });
    const { authorization: _none, ...headers } = parsed.headers;
    const config = { ...parsed, headers };
    const { method, path } = OPERATIONS.exchangeConsoleLink;
    return sendRequest(config, { method, path, body }, parseRequestOptions(options));
  }

  /**
   * exchange-api-key: trade the client's API key for an access token that acts as the key (its project, as admin)
   * for 15 minutes, renewable for up to 12 hours: what a browser app keeps instead of the key.
   * @example
   * ```ts
   * const { accessToken, projectId, expiresAt } = await new MountainClient({ apiKey }).exchangeApiKey();
   * const client = new MountainClient({ accessToken, projectId });
   * ```
   */
  exchangeApiKey(options?: RequestOptions) {
    return this.#call('exchangeApiKey', {}, options);
  }

  /**
   * renew-access-token: a new token of the session of the client's token (one from exchangeApiKey), for 15 minutes
   * more, never past the session's end (`sessionEndsAt`). The client's own token stays valid until it expires.
   * @example
   * ```ts
   * const { accessToken, expiresAt } = await client.renewAccessToken();
   * const renewed = new MountainClient({ accessToken, projectId });
   * ```
   */
  renewAccessToken(options?: RequestOptions) {
    return this.#call('renewAccessToken', {}, options);
  }

  /**
   * revoke-access-token: sign out, revoking the client's own access token (with every renewal of its session); from
   * then on it answers 401.
   * @example
   * ```ts
   * await client.revokeAccessToken();
   * ```
   */
  revokeAccessToken(options?: RequestOptions) {
    return this.#call('revokeAccessToken', {}, options);
  }

  /**
   * create-subscription: scan one contract event and deliver it to a webhook. The answer shows `webhookSecret`.
   * @example
   * ```ts
   * const { eventNotifierSubscription } = await client.createSubscription({
   *   subscriptionName: 'Transfers', networkId: 1337, address, formattedAbiEvent: 'event Transfer(address indexed from, address indexed to, uint256 value)',
   *   initialBlockNumber: 0, scanInterval: 5, webhookURL: 'https://example.com/webhooks',
   * });
   * ```
   */
  createSubscription(body: RequestBody<'create-subscription'>, options?: RequestOptions) {
    return this.#call('createSubscription', { body }, options);
  }

  /**
   * get-subscriptions: one page of the project's event subscriptions (100 by default), newest first.
   * @example
   * ```ts
   * const { eventNotifierSubscriptions, meta } = await client.getSubscriptions();
   * const second = await client.getSubscriptions({}, { page: 2, perPage: 50 });
   * ```
   */
  getSubscriptions(options?: RequestOptions, query: PageQuery<'get-subscriptions'> = {}) {
    return this.#call('getSubscriptions', { query }, options);
  }

  /**
   * update-subscription-webhook: change a subscription's webhook URL, switch or retries.
   * @example
   * ```ts
   * await client.updateSubscriptionWebhook({ id: subscriptionId, webhookEnabled: false });
   * ```
   */
  updateSubscriptionWebhook(body: RequestBody<'update-subscription-webhook'>, options?: RequestOptions) {
    return this.#call('updateSubscriptionWebhook', { body }, options);
  }

  /**
   * update-subscription-scan: stop a subscription's scanning, or resume it from the block after the last scanned.
   * @example
   * ```ts
   * await client.updateSubscriptionScan({ id: subscriptionId, scanEnabled: false });
   * ```
   */
  updateSubscriptionScan(body: RequestBody<'update-subscription-scan'>, options?: RequestOptions) {
    return this.#call('updateSubscriptionScan', { body }, options);
  }

  /**
   * update-subscription: rename a subscription, change its cadence or depth, or what it watches (its other
   * contracts and events, its filters and conditions), from the next scanned block.
   * @example
   * ```ts
   * await client.updateSubscription({ id: subscriptionId, filters: { to: [depositAddress] } });
   * ```
   */
  updateSubscription(body: RequestBody<'update-subscription'>, options?: RequestOptions) {
    return this.#call('updateSubscription', { body }, options);
  }

  /**
   * rewind-subscription: scan again from an earlier block; records already stored are not duplicated, and are sent
   * again only with `redeliver: true`.
   * @example
   * ```ts
   * const { redeliveredCount } = await client.rewindSubscription({ id: subscriptionId, fromBlock: 1200 });
   * ```
   */
  rewindSubscription(body: RequestBody<'rewind-subscription'>, options?: RequestOptions) {
    return this.#call('rewindSubscription', { body }, options);
  }

  /**
   * delete-subscription: scanning and deliveries stop, and the subscription and its records are gone.
   * @example
   * ```ts
   * const { message } = await client.deleteSubscription({ id: subscriptionId });
   * ```
   */
  deleteSubscription(body: RequestBody<'delete-subscription'>, options?: RequestOptions) {
    return this.#call('deleteSubscription', { body }, options);
  }

  /**
   * get-records: the events a subscription found, with their delivery state.
   * @example
   * ```ts
   * const { eventNotifierRecords } = await client.getRecords({ subscriptionId });
   * ```
   */
  getRecords(body: RequestBody<'get-records'>, options?: RequestOptions) {
    return this.#call('getRecords', { body }, options);
  }

  /**
   * resend-failed-webhook: queue the failed deliveries of a subscription again.
   * @example
   * ```ts
   * const { record } = await client.resendFailedWebhook({ subscriptionId });
   * ```
   */
  resendFailedWebhook(body: RequestBody<'resend-failed-webhook'>, options?: RequestOptions) {
    return this.#call('resendFailedWebhook', { body }, options);
  }

  /**
   * get-contracts: the project's imported contracts.
   * @example
   * ```ts
   * const { contracts } = await client.getContracts();
   * ```
   */
  getContracts(options?: RequestOptions) {
    return this.#call('getContracts', {}, options);
  }

  /**
   * import-contract: add a deployed contract with its human-readable ABI (409 when imported already).
   * @example
   * ```ts
   * const { contract } = await client.importContract({ networkId: 1337, address, formattedAbi: ['function mint(address to, uint256 amount)'] });
   * ```
   */
  importContract(body: RequestBody<'import-contract'>, options?: RequestOptions) {
    return this.#call('importContract', { body }, options);
  }

  /**
   * activate-contract-function: allow a contract function to be executed.
   * @example
   * ```ts
   * const { contractActivatedFunction } = await client.activateContractFunction({ contractId: contract.id, formattedAbiFunction: 'function mint(address to, uint256 amount)' });
   * ```
   */
  activateContractFunction(body: RequestBody<'activate-contract-function'>, options?: RequestOptions) {
    return this.#call('activateContractFunction', { body }, options);
  }

  /**
   * deactivate-contract-function: stop allowing a contract function to be executed.
   * @example
   * ```ts
   * const { message } = await client.deactivateContractFunction({ contractId: contract.id, formattedAbiFunction: 'function mint(address to, uint256 amount)' });
   * ```
   */
  deactivateContractFunction(body: RequestBody<'deactivate-contract-function'>, options?: RequestOptions) {
    return this.#call('deactivateContractFunction', { body }, options);
  }

  /**
   * get-contract-activated-functions: the activated functions of a contract.
   * @example
   * ```ts
   * const { contractActivatedFunctions } = await client.getContractActivatedFunctions({ contractId: contract.id });
   * ```
   */
  getContractActivatedFunctions(body: RequestBody<'get-contract-activated-functions'>, options?: RequestOptions) {
    return this.#call('getContractActivatedFunctions', { body }, options);
  }

  /**
   * call-contract-function: read a view or pure function of a contract (any role, no activation), at `latest`
   * or at the `blockTag` given; the outputs come back as strings, with the block they were read at.
   * @example
   * ```ts
   * const { result, blockNumber } = await client.callContractFunction({ contractId: contract.id, formattedAbiFunction: 'function balanceOf(address owner) view returns (uint256)', functionArgs: [owner] });
   * ```
   */
  callContractFunction(body: RequestBody<'call-contract-function'>, options?: RequestOptions) {
    return this.#call('callContractFunction', { body }, options);
  }

  /**
   * execute-transaction: call an activated function from the project's system wallet. The idempotency key is
   * the body's, else `options.idempotencyKey`, else a new random UUID; it is the same on every retry, so a
   * retried call never makes two transactions.
   * @example
   * ```ts
   * const { transaction } = await client.executeTransaction({ contractActivatedFunctionId: 12, functionArgs: [to, '1000'] });
   * ```
   */
  executeTransaction(
    body: Omit<RequestBody<'execute-transaction'>, 'idempotencyKey'> & { idempotencyKey?: string },
    options?: RequestOptions,
  ) {
    const idempotencyKey = body.idempotencyKey ?? options?.idempotencyKey ?? crypto.randomUUID();
    return this.#call('executeTransaction', { body: { ...body, idempotencyKey } }, options);
  }

  /**
   * get-transaction: one transaction by id.
   * @example
   * ```ts
   * const { transaction } = await client.getTransaction({ transactionId });
   * ```
   */
  getTransaction(query: QueryParams<'get-transaction'>, options?: RequestOptions) {
    return this.#call('getTransaction', { query }, options);
  }

  /**
   * speed-up-transaction: re-sign a waiting transaction at its nonce with higher fees (`feeMultiplier`, 1.5 by
   * default, never above the network's fee cap); get-transaction then shows the new fees and hash.
   * @example
   * ```ts
   * const { transaction } = await client.speedUpTransaction({ transactionId, feeMultiplier: 2 });
   * ```
   */
  speedUpTransaction(body: RequestBody<'speed-up-transaction'>, options?: RequestOptions) {
    return this.#call('speedUpTransaction', { body }, options);
  }

  /**
   * cancel-transaction: a transaction not sent yet is `cancelled` at once; a sent one is `cancelling` until its
   * cancelling transfer (or the original) is mined.
   * @example
   * ```ts
   * const { transaction } = await client.cancelTransaction({ transactionId });
   * ```
   */
  cancelTransaction(body: RequestBody<'cancel-transaction'>, options?: RequestOptions) {
    return this.#call('cancelTransaction', { body }, options);
  }

  /**
   * get-transactions: one page of the project's transactions, newest first, optionally of one status.
   * @example
   * ```ts
   * const { data, meta } = await client.getTransactions({ status: 'failed', page: 1, perPage: 50 });
   * ```
   */
  getTransactions(query: PageQuery<'get-transactions'> = {}, options?: RequestOptions) {
    return this.#call('getTransactions', { query }, options);
  }

  /**
   * create-webhook-endpoint: a URL that receives the project's webhooks of the chosen event types. The answer is
   * the only one with the full `secret`.
   * @example
   * ```ts
   * const { webhookEndpoint } = await client.createWebhookEndpoint({ url: 'https://example.com/hooks', eventTypes: ['transaction.succeeded'] });
   * ```
   */
  createWebhookEndpoint(body: RequestBody<'create-webhook-endpoint'>, options?: RequestOptions) {
    return this.#call('createWebhookEndpoint', { body }, options);
  }

  /**
   * get-webhook-endpoints: every webhook endpoint of the project, secrets masked.
   * @example
   * ```ts
   * const { webhookEndpoints } = await client.getWebhookEndpoints();
   * ```
   */
  getWebhookEndpoints(options?: RequestOptions) {
    return this.#call('getWebhookEndpoints', {}, options);
  }

  /**
   * update-webhook-endpoint: change the URL, event types, subscriptions, description or `enabled`.
   * @example
   * ```ts
   * const { webhookEndpoint } = await client.updateWebhookEndpoint({ id, enabled: true });
   * ```
   */
  updateWebhookEndpoint(body: RequestBody<'update-webhook-endpoint'>, options?: RequestOptions) {
    return this.#call('updateWebhookEndpoint', { body }, options);
  }

  /**
   * delete-webhook-endpoint: nothing more is sent to the endpoint.
   * @example
   * ```ts
   * const { message } = await client.deleteWebhookEndpoint({ id });
   * ```
   */
  deleteWebhookEndpoint(body: RequestBody<'delete-webhook-endpoint'>, options?: RequestOptions) {
    return this.#call('deleteWebhookEndpoint', { body }, options);
  }

  /**
   * rotate-webhook-endpoint-secret: a new secret signs at once; the previous one signs beside it for the grace
   * period (24 hours unless `gracePeriodSeconds` says).
   * @example
   * ```ts
   * const { webhookEndpoint } = await client.rotateWebhookEndpointSecret({ id, gracePeriodSeconds: 3600 });
   * ```
   */
  rotateWebhookEndpointSecret(body: RequestBody<'rotate-webhook-endpoint-secret'>, options?: RequestOptions) {
    return this.#call('rotateWebhookEndpointSecret', { body }, options);
  }

  /**
   * get-webhook-messages: one page of the messages of an endpoint or a subscription, newest first.
   * @example
   * ```ts
   * const { webhookMessages, nextCursor } = await client.getWebhookMessages({ endpointId, status: 'failed' });
   * ```
   */
  getWebhookMessages(query: QueryParams<'get-webhook-messages'>, options?: RequestOptions) {
    return this.#call('getWebhookMessages', { query }, options);
  }

  /**
   * Every message matching `query`, fetching page after page (by `nextCursor`) as you iterate.
   * @example
   * ```ts
   * for await (const message of client.iterateWebhookMessages({ endpointId })) console.log(message.webhookId);
   * ```
   */
  async *iterateWebhookMessages(query: QueryParams<'get-webhook-messages'>, options?: RequestOptions) {
    let cursor: string | undefined;
    do {
      const page = await this.getWebhookMessages({ ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.webhookMessages;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /**
   * get-webhook-attempts: one page of the attempt log, newest first.
   * @example
   * ```ts
   * const { webhookAttempts, nextCursor } = await client.getWebhookAttempts({ outcome: 'failed', since: '2026-11-20T00:00:00Z' });
   * ```
   */
  getWebhookAttempts(query: QueryParams<'get-webhook-attempts'> = {}, options?: RequestOptions) {
    return this.#call('getWebhookAttempts', { query }, options);
  }

  /**
   * Every attempt matching `query`, fetching page after page (by `nextCursor`) as you iterate.
   * @example
   * ```ts
   * for await (const attempt of client.iterateWebhookAttempts({ endpointId, outcome: 'failed' })) console.log(attempt.httpStatus);
   * ```
   */
  async *iterateWebhookAttempts(query: QueryParams<'get-webhook-attempts'> = {}, options?: RequestOptions) {
    let cursor: string | undefined;
    do {
      const page = await this.getWebhookAttempts({ ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.webhookAttempts;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /**
   * replay-webhook-messages: send again the failed (or all) messages of an endpoint or subscription in a window,
   * with their original webhook-id; asking twice does not send twice.
   * @example
   * ```ts
   * const { queuedCount } = await client.replayWebhookMessages({ endpointId, since: '2026-11-20T08:00:00Z' });
   * ```
   */
  replayWebhookMessages(body: RequestBody<'replay-webhook-messages'>, options?: RequestOptions) {
    return this.#call('replayWebhookMessages', { body }, options);
  }

  /**
   * rotate-subscription-webhook-secret: a new webhookSecret signs at once; the previous one signs beside it for the
   * grace period (24 hours unless `gracePeriodSeconds` says).
   * @example
   * ```ts
   * const { eventNotifierSubscription } = await client.rotateSubscriptionWebhookSecret({ id: subscriptionId });
   * ```
   */
  rotateSubscriptionWebhookSecret(body: RequestBody<'rotate-subscription-webhook-secret'>, options?: RequestOptions) {
    return this.#call('rotateSubscriptionWebhookSecret', { body }, options);
  }

  /**
   * Every transaction of the project (optionally of one status), fetching page after page as you iterate.
   * @example
   * ```ts
   * for await (const transaction of client.iterateTransactions({ status: 'failed' })) console.log(transaction.id);
   * ```
   */
  iterateTransactions(
    filter: IterateTransactionsOptions = {},
    options?: RequestOptions,
  ): AsyncGenerator<Transaction, void, undefined> {
    return iterateTransactions((query, o) => this.getTransactions(query, o), filter, options);
  }

  /**
   * Polls a transaction until its status is final (see `FINAL_TRANSACTION_STATUSES`) and resolves with it;
   * rejects with a `TimeoutError` after `timeoutMs`.
   * @example
   * ```ts
   * const { status } = await client.waitForTransaction(transaction.id, { intervalMs: 500, timeoutMs: 60_000 });
   * ```
   */
  waitForTransaction(transactionId: string, options: WaitForTransactionOptions = {}): Promise<Transaction> {
    return waitForTransaction((query, o) => this.getTransaction(query, o), transactionId, options);
  }
}
