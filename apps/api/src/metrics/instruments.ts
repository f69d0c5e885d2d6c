import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's metrics, in one registry served at `GET /metrics` (metricsRoute.ts). Counters and histograms are
 * facts of this process (its HTTP requests, its webhook attempts), so they live here once per process, as
 * prom-client intends, rather than per app: `--role all` serves the API's and the worker's in one answer. The
 * gauges of the platform's state are read from the database and the chains at each scrape (platformState.ts).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'mountain_http_requests_total',
  help: 'HTTP requests answered, by operation (operationId, or healthz, readyz, metrics, unmatched) and status code.',
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'mountain_http_request_duration_seconds',
  help: 'Time from receiving a request to sending its answer, by operation.',
  labelNames: ['operation'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/** How one webhook attempt ended. */
export type DeliveryOutcome = 'delivered' | 'http_error' | 'timeout' | 'connection_error' | 'refused';

export const webhookDeliveries = new Counter({
  name: 'mountain_webhook_deliveries_total',
  help: 'Webhook attempts by outcome: delivered (2xx), http_error (another status), timeout, connection_error, refused (URL policy).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookDuration = new Histogram({
  name: 'mountain_webhook_delivery_duration_seconds',
  help: 'Time of one webhook attempt, from signing to the end of the answer (or the failure), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'mountain_rate_limit_refusals_total',
  help: 'Requests answered 429 RATE_LIMITED: by a credential over its limit (credential), by a client address over its refused-authentication limit (auth_failures), or over its limit of sign-in link exchanges (link_exchanges).',
  labelNames: ['limit'] as const,
  registers: [registry],
});

/** How a speed-up went: asked (speed-up-transaction accepted it), sent (its replacement went out), blocked (the fee
 * cap left no room for the 10% a replacement needs). */
export type SpeedUpOutcome = 'asked' | 'sent' | 'blocked';

export const transactionCancellations = new Counter({
  name: 'mountain_transaction_cancellations_total',
  help: "Cancels by outcome: asked (cancel-transaction accepted one), expired (a deadline passed), unsent (cancelled before it was sent, or by its custodian before signing), sent (a cancelling transfer went out at its nonce, or its custodian's drop did), cancelled (that transfer was mined), lost (the original was mined first), blocked (the fee cap left no room to replace it, or its custodian refused or failed the drop).",
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const transactionSpeedUps = new Counter({
  name: 'mountain_transaction_speed_ups_total',
  help: 'Speed-ups by outcome: asked (speed-up-transaction accepted one), sent (the monitor sent its replacement, or asked its custodian for one), blocked (the fee cap left no room for the 10% more a replacement needs, or its custodian refused or failed the replacement).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const jobs = new Gauge({
  name: 'mountain_jobs',
  help: 'Jobs in the queue by task (the job name, such as transaction:send) and state: queued (due, waiting for a worker), scheduled (due later), running (taken by a worker process: running, or held up to a second for a slot to free), failed (out of attempts).',
  labelNames: ['task', 'state'] as const,
  registers: [registry],
});

export const jobOldestQueued = new Gauge({
  name: 'mountain_job_oldest_queued_seconds',
  help: 'How long the oldest queued job of each task has been due without a worker taking it (0 when none waits).',
  labelNames: ['task'] as const,
  registers: [registry],
});

export const transactionsUnfinished = new Gauge({
  name: 'mountain_transactions_unfinished',
  help: 'Transactions not yet mined (created, processing, broadcasted, cancelling), by network and status.',
  labelNames: ['network', 'status'] as const,
  registers: [registry],
});

export const transactionOldestUnfinished = new Gauge({
  name: 'mountain_transaction_oldest_unfinished_seconds',
  help: 'Age of the oldest transaction not yet mined, by network (0 when none).',
  labelNames: ['network'] as const,
  registers: [registry],
});

export const walletNonceLag = new Gauge({
  name: 'mountain_wallet_nonce_lag',
  help: "Next nonce the platform will use for a system wallet minus the chain's pending nonce of that wallet, by network and wallet address (each wallet that has sent on the network). Above 0: nonces handed out that the node's pool does not hold (waiting to be sent, or lost); below 0: the wallet was used from elsewhere.",
  labelNames: ['network', 'wallet'] as const,
  registers: [registry],
});

export const scanLag = new Gauge({
  name: 'mountain_event_scan_lag_blocks',
  help: "The largest scan lag of the network's enabled subscriptions: the chain's head minus lastScannedBlock. A healthy subscription stays near its confirmations (it scans only blocks that deep), plus the blocks of one scanInterval.",
  labelNames: ['network'] as const,
  registers: [registry],
});

export const walletBalance = new Gauge({
  name: 'mountain_wallet_balance',
  help: 'Each system wallet that has sent on the network: its balance in the native currency (ether units: ETH, POL), read at each scrape.',
  labelNames: ['network', 'wallet'] as const,
  registers: [registry],
});

export const walletLowBalanceThreshold = new Gauge({
  name: 'mountain_wallet_low_balance_threshold',
  help: 'The balance under which a system wallet of the network is low (LOW_BALANCE_WEI_<networkId>), in the native currency; absent for a network whose warning is off.',
  labelNames: ['network'] as const,
  registers: [registry],
});

export const networkUp = new Gauge({
  name: 'mountain_network_up',
  help: 'Whether the network answered this scrape within 3 s (1) or not (0): its nonce lag and scan lag are left out when not.',
  labelNames: ['network'] as const,
  registers: [registry],
});

export const rpcEndpointUp = new Gauge({
  name: 'mountain_rpc_endpoint_up',
  help: 'For a network of several RPC endpoints (RPC_URL_<id> a list), each endpoint as this process ranks it: 1 healthy, 0.5 lagging (its head more than RPC_MAX_LAG_BLOCKS_<id> behind), 0 failing (its last request failed; tried again after a cool-down). The endpoint label is its position and host, never its URL.',
  labelNames: ['network', 'endpoint'] as const,
  registers: [registry],
});

export const rpcEndpointFailures = new Gauge({
  name: 'mountain_rpc_endpoint_failed_requests',
  help: 'For a network of several RPC endpoints, the requests each endpoint failed (unreachable, timed out, 5xx, rate-limited) since this process started; each was asked of the next endpoint.',
  labelNames: ['network', 'endpoint'] as const,
  registers: [registry],
});

export const stateUp = new Gauge({
  name: 'mountain_platform_state_up',
  help: "Whether this scrape could read the platform's state from the database (1) or not (0, the state gauges are then left out).",
  registers: [registry],
});

/** The gauges read from the database at each scrape. */
export const STATE_GAUGES = [
  jobs,
  jobOldestQueued,
  transactionsUnfinished,
  transactionOldestUnfinished,
  walletNonceLag,
  walletBalance,
  walletLowBalanceThreshold,
  scanLag,
  networkUp,
] as const;
