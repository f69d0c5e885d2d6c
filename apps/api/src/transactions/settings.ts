import { parseGwei } from 'viem';
import {
  DEFAULT_CONFIRMATIONS,
  DEFAULT_LOW_BALANCE_WEI,
  DEFAULT_MAX_FEE_PER_GAS_GWEI,
  NETWORK_IDS,
  type NetworkId,
} from '#api/config/networks.ts';
import { code, type Env, parseInteger, perNetwork, type VariableDefinition } from '#api/config/parse.ts';

/** Tunables of the transaction pipeline. The defaults are what `npm start` and production use. */
export interface TransactionSettings {
  /** Transactions signed and broadcast per round of the sender. */
  batchSize: number;
  /** Gas limit = estimate × (100 + headroom) / 100. */
  gasHeadroomPercent: number;
  /** Waits between attempts while the RPC endpoint is unreachable; after the last one: broadcast-failed. */
  retryDelaysMs: number[];
  /** A broadcast transaction without receipt after this long is re-sent with a higher fee on the same nonce. */
  resendAfterMs: number;
  /** Fee increase of each re-send (nodes require at least 10% to replace a transaction). */
  feeBumpPercent: number;
  /** Re-sends for want of a receipt (`resendAfterMs`); re-pricing above a risen base fee is bounded by the cap only. */
  maxFeeBumps: number;
  /**
   * Per network, the most wei per gas the platform signs (MAX_FEE_PER_GAS_GWEI_<id>); absent: the network's default
   * (DEFAULT_MAX_FEE_PER_GAS_GWEI). Above it, transactions wait for the base fee to fall.
   */
  maxFeePerGas: Readonly<Partial<Record<number, bigint>>>;
  /** While the base fee is above the cap, the sender looks again after this long. */
  feeCapPollMs: number;
  /** No receipt this long after acceptance: monitor-failed. */
  receiptTimeoutMs: number;
  /** Pause between receipt checks while transactions are waiting. */
  monitorPollMs: number;
  /** A job hands over to a fresh job after this long, so one wallet cannot hold a worker slot forever. */
  jobBudgetMs: number;
  /** Pause between looks at mined transactions not final yet (while none waits for a receipt). */
  finalityPollMs: number;
  /**
   * Per network, how many blocks on top make a block final where the node has no `finalized` tag (see
   * CONFIRMATIONS_<id>); a node that answers the tag decides by it.
   */
  finalityDepth: Readonly<Partial<Record<number, number>>>;
  /** A head lower than one seen within this long is a lagging node, not a rollback. */
  lagGraceMs: number;
  /** A broadcast transaction missing from the node's pool this long after its broadcast is sent again. */
  resendDroppedAfterMs: number;
  /**
   * Per network, the most transactions of one wallet sent and not yet mined (MAX_IN_FLIGHT_<id>). Absent: 16, what
   * a geth pool keeps per account for sure; on 1337 with anvil's automine on, no limit.
   */
  maxInFlight: Readonly<Partial<Record<number, number>>>;
  /** A row its wallet cannot pay for waits this long (WAIT_FOR_FUNDS_SECONDS), then fails. */
  waitForFundsMs: number;
  /** While a row waits for funds, the sender looks at the wallet's balance again after this long. */
  fundsPollMs: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 16;

/** How long a row its wallet cannot pay for waits when WAIT_FOR_FUNDS_SECONDS is not set: an hour. */
export const DEFAULT_WAIT_FOR_FUNDS_SECONDS = 3_600;

/** The most wallets a project's pool of one network type may have when MAX_WALLETS_PER_PROJECT is not set. */
export const DEFAULT_MAX_WALLETS_PER_PROJECT = 64;

export const DEFAULT_TRANSACTION_SETTINGS: Readonly<TransactionSettings> = Object.freeze({
  batchSize: 200,
  gasHeadroomPercent: 20,
  retryDelaysMs: [1_000, 2_000, 5_000, 10_000, 30_000],
  resendAfterMs: 60_000,
  feeBumpPercent: 15,
  maxFeeBumps: 5,
  maxFeePerGas: {},
  feeCapPollMs: 2_000,
  receiptTimeoutMs: 30 * 60_000,
  monitorPollMs: 250,
  jobBudgetMs: 30_000,
  finalityPollMs: 1_000,
  finalityDepth: DEFAULT_CONFIRMATIONS,
  lagGraceMs: 10_000,
  resendDroppedAfterMs: 3_000,
  maxInFlight: {},
  waitForFundsMs: DEFAULT_WAIT_FOR_FUNDS_SECONDS * 1000,
  fundsPollMs: 5_000,
});

/** The transaction pipeline's variables, as the configuration reference lists them. */
export const TRANSACTION_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['MAX_IN_FLIGHT_<networkId>'],
    default: `${code(DEFAULT_MAX_IN_FLIGHT)}; on 1337 with anvil's automine on, no limit`,
    meaning:
      'The most transactions of one system wallet sent and not yet mined on that network: a geth pool keeps 16 per ' +
      'account for sure, and hosted nodes refuse a sender past their limit ("txpool is full"). The rest wait as ' +
      '`created` and are sent as blocks take the first ones.',
  },
  {
    names: ['WAIT_FOR_FUNDS_SECONDS'],
    default: code(DEFAULT_WAIT_FOR_FUNDS_SECONDS),
    meaning:
      'How long a transaction whose system wallet cannot pay for it (value + gas limit × fee cap, beside what its ' +
      'transactions in flight may spend) waits, `created`, its `errorMessage` naming the wallet, its balance and what ' +
      'it needs; funded meanwhile, it is sent, else it ends `broadcast-failed` with that message (0 to 604,800).',
  },
  {
    names: ['MAX_WALLETS_PER_PROJECT'],
    default: code(DEFAULT_MAX_WALLETS_PER_PROJECT),
    meaning:
      'The most system wallets one project may have per network type, its primary wallet counted (at most 1,000): ' +
      '`add-system-wallets` past it is refused with 409 `WALLET_LIMIT_REACHED`.',
  },
  {
    names: ['MAX_FEE_PER_GAS_GWEI_<networkId>'],
    default: perNetwork(DEFAULT_MAX_FEE_PER_GAS_GWEI),
    meaning:
      'The most a system wallet signs per unit of gas on that network, in gwei (fractions allowed: `0.5`). Fees ' +
      'follow a rising base fee (a waiting transaction is re-priced at once when the base fee passes its fee cap) ' +
      'up to here; above it, transactions wait, and their `errorMessage` says so.',
  },
  {
    names: ['LOW_BALANCE_WEI_<networkId>'],
    default: `${perNetwork(Object.fromEntries(Object.entries(DEFAULT_LOW_BALANCE_WEI).map(([id, wei]) => [id, String(wei)])))} (0.05, 5, 0.005, 0.05, 1, 0.005 and 1 of the native currency)`,
    meaning:
      'The balance, in wei, under which a system wallet that has sent on that network is reported low: ' +
      '`mountain_wallet_balance` and `mountain_wallet_low_balance_threshold` are read at each scrape, and the ' +
      '`MountainWalletBalanceLow` alert fires under it. `0` turns it off for the network.',
  },
];

/** The fee cap of a network in wei: the deployment's MAX_FEE_PER_GAS_GWEI_<id>, or the network's default. */
export function feeCapOf(settings: TransactionSettings, networkId: number): bigint {
  const given = settings.maxFeePerGas[networkId];
  if (given !== undefined) return given;
  const gwei = DEFAULT_MAX_FEE_PER_GAS_GWEI[networkId as keyof typeof DEFAULT_MAX_FEE_PER_GAS_GWEI];
  return parseGwei(String(gwei ?? 1_000));
}

/** MAX_IN_FLIGHT_<id>: per network, the most transactions of one wallet sent and not yet mined. */
export function parseMaxInFlight(env: Env, problems: string[]): Readonly<Partial<Record<NetworkId, number>>> {
  const maxInFlight: Partial<Record<NetworkId, number>> = {};
  for (const id of NETWORK_IDS) {
    const value = env[`MAX_IN_FLIGHT_${id}`];
    if (value !== undefined) maxInFlight[id] = parseInteger(`MAX_IN_FLIGHT_${id}`, value, problems, 1, 1_000_000);
  }
  return Object.freeze(maxInFlight);
}

/** WAIT_FOR_FUNDS_SECONDS, in ms. */
export function parseWaitForFunds(env: Env, problems: string[]): number {
  const value = env.WAIT_FOR_FUNDS_SECONDS;
  const seconds =
    value === undefined
      ? DEFAULT_WAIT_FOR_FUNDS_SECONDS
      : parseInteger('WAIT_FOR_FUNDS_SECONDS', value, problems, 0, 604_800);
  return seconds * 1000;
}

/** MAX_WALLETS_PER_PROJECT: the most wallets of one network type a project's pool may have. */
export function parseMaxWalletsPerProject(env: Env, problems: string[]): number {
  const value = env.MAX_WALLETS_PER_PROJECT;
  return value === undefined
    ? DEFAULT_MAX_WALLETS_PER_PROJECT
    : parseInteger('MAX_WALLETS_PER_PROJECT', value, problems, 1, 1_000);
}

/** LOW_BALANCE_WEI_<id>: per network, the balance under which a system wallet is reported low; 0 turns it off. */
export function parseLowBalance(env: Env, problems: string[]): Readonly<Partial<Record<NetworkId, bigint>>> {
  const low: Partial<Record<NetworkId, bigint>> = { ...DEFAULT_LOW_BALANCE_WEI };
  for (const id of NETWORK_IDS) {
    const variable = `LOW_BALANCE_WEI_${id}`;
    const value = env[variable];
    if (value === undefined) continue;
    if (!/^\d{1,40}$/.test(value)) problems.push(`${variable} must be a whole number of wei (0 turns the warning off)`);
    else if (BigInt(value) === 0n) delete low[id];
    else low[id] = BigInt(value);
  }
  return Object.freeze(low);
}

/** MAX_FEE_PER_GAS_GWEI_<id>: per network, the most wei per gas the platform signs, given in gwei. */
export function parseMaxFeePerGas(env: Env, problems: string[]): Readonly<Partial<Record<NetworkId, bigint>>> {
  const maxFeePerGas: Partial<Record<NetworkId, bigint>> = {};
  for (const id of NETWORK_IDS) {
    const name = `MAX_FEE_PER_GAS_GWEI_${id}`;
    const value = env[name];
    if (value === undefined) continue;
    const wei = parseGweiAmount(value);
    if (wei === undefined)
      problems.push(`${name} must be a number of gwei above 0 and at most 10000000, such as 500 or 0.1`);
    else maxFeePerGas[id] = wei;
  }
  return Object.freeze(maxFeePerGas);
}

/** "500" or "0.1" gwei in wei; undefined unless above 0, at most 10,000,000 gwei and at most 9 decimals. */
function parseGweiAmount(text: string): bigint | undefined {
  const match = /^(\d{1,8})(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!match) return undefined;
  const wei = BigInt(match[1] as string) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0') || '0');
  return wei > 0n && wei <= 10_000_000n * 1_000_000_000n ? wei : undefined;
}
