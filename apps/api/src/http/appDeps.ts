import type { Chains } from '#api/chain/chains.ts';
import type { NetworkId } from '#api/config/networks.ts';
import type { MasterKeys } from '#api/crypto/secretBox.ts';
import type { Db } from '#api/db/db.ts';
import type { DeliverySettings } from '#api/delivery/settings.ts';
import type { EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import type { RemoteCustodians } from '#api/wallets/custodians.ts';
import type { CorsSettings } from './cors.ts';
import type { RateLimitSettings } from './rateLimitSettings.ts';

export const API_PREFIX = '/public-api/v3';

/** How long a client has to send a whole request when the deployment does not say. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Everything a request handler may use. Built by main.ts (or a test) and passed in: the app opens nothing itself. */
export interface AppDeps {
  db: Db;
  chains: Chains;
  /** Signs access tokens, and verifies them. */
  tokenSigningKey: Buffer;
  /** Keys of earlier tokens that still verify (TOKEN_SIGNING_KEYS after the first); none when absent. */
  previousTokenSigningKeys?: readonly Buffer[];
  /** Encrypts secrets at rest (webhook secrets). */
  masterKey: MasterKeys;
  bodyLimit: number;
  /** Event notifier settings; the development defaults when absent. */
  eventNotifier?: EventNotifierSettings;
  /** Webhook delivery and endpoint settings (the URL policy, the endpoint limit); the defaults when absent. */
  delivery?: DeliverySettings;
  /** Per-credential and failed-authentication limits; `DEFAULT_RATE_LIMIT` when absent. */
  rateLimit?: RateLimitSettings;
  /** Which origins browsers may call the API from; any when absent. */
  cors?: CorsSettings;
  /** TRUSTED_PROXIES: proxies whose X-Forwarded-For names the client (trustedProxies.ts); none when absent. */
  trustedProxies?: readonly string[];
  /** How long a client has to send a whole request, headers and body (REQUEST_TIMEOUT_MS); 30 s when absent. */
  requestTimeoutMs?: number;
  /** METRICS_TOKEN: with it, `GET /metrics` answers on the API's port to `Authorization: Bearer <token>`. */
  /** LOW_BALANCE_WEI_<id>, for the state /metrics reads (its low-balance thresholds). */
  lowBalanceWei?: Readonly<Partial<Record<NetworkId, bigint>>>;
  metricsToken?: string;
  /** MAX_WALLETS_PER_PROJECT: the most wallets of one network type in a project's pool; 64 when absent. */
  maxWalletsPerProject?: number;
  /** The custodians this deployment has credentials for (Fireblocks); none when absent. */
  custodians?: RemoteCustodians;
  /** The built developer console (apps/console/dist), served at /console/; not served when absent or not built. */
  consoleDir?: string;
}
