import { createPrivateKey } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fireblocks, FireblocksResponse } from '@fireblocks/ts-sdk';
import { BaseError } from '#api/errors/BaseError.ts';
import { createPacer } from '#api/lib/pacer.ts';
import type { FireblocksSettings } from './settings.ts';

/** How a call to Fireblocks went wrong, which decides what the caller may do next. */
export type FireblocksFailure =
  /** 4xx other than 429: Fireblocks refused the request; the same request will be refused again. */
  | 'refused'
  /** 429: past the API user's rate limit; try again later. */
  | 'rate-limited'
  /** 5xx, a timeout or no answer: Fireblocks may or may not have done it. */
  | 'unavailable';

/**
 * A call to Fireblocks that failed, with Fireblocks' own status, code and message (never the request's secrets).
 * Never meant for a client: its catalogue code is INTERNAL_ERROR (the callers turn it into a refusal or a retry).
 */
export class FireblocksCallError extends BaseError {
  override name = 'FireblocksCallError';
  readonly code = 'INTERNAL_ERROR';
  constructor(
    message: string,
    readonly failure: FireblocksFailure,
    readonly status: number | undefined,
    /** Fireblocks' own numeric code from its answer's body (1438: a duplicate externalTxId…), when it gave one. */
    readonly fireblocksCode: number | undefined,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** Fireblocks' code for a create whose externalTxId another transaction of the workspace already has. */
export const DUPLICATE_EXTERNAL_TX_ID = 1438;

/** A Fireblocks API answer must arrive within this long (a create that timed out is looked up before a retry). */
const CALL_TIMEOUT_MS = 15_000;
/** Tries of one read call on 429 and 5xx before its error reaches the caller. */
const READ_TRIES = 3;

/**
 * The official SDK (`@fireblocks/ts-sdk`) with what every caller needs around it: calls paced to stay far below the
 * API user's rate limits (FIREBLOCKS_MAX_RPS per process), errors classified (FireblocksCallError), reads retried
 * with backoff on 429 and 5xx. Writes are not retried here: their callers decide (a create that may have been
 * accepted is looked up first).
 */
export interface FireblocksApi {
  /** The SDK's client, loaded at the first call. */
  sdk(): Promise<Fireblocks>;
  /** A read: paced within half the budget (writes keep the rest), retried on 429 and 5xx, its answer's data. */
  read<T>(call: (sdk: Fireblocks) => Promise<FireblocksResponse<T>>): Promise<T>;
  /** A write: paced, sent once, its answer's data. */
  write<T>(call: (sdk: Fireblocks) => Promise<FireblocksResponse<T>>): Promise<T>;
}

export function createFireblocksApi(
  settings: Pick<FireblocksSettings, 'apiKey' | 'secretKey' | 'baseUrl' | 'maxRps'>,
): FireblocksApi {
  // Loaded at the first call: a process that never calls Fireblocks (the admin CLI's other commands, a deployment
  // whose projects use other wallets) does not pay for loading the SDK.
  let loaded: Promise<Fireblocks> | undefined;
  const sdk = () => {
    loaded ??= import('@fireblocks/ts-sdk').then(
      ({ Fireblocks }) =>
        new Fireblocks({
          apiKey: settings.apiKey,
          // The SDK hands its secretKey to jsonwebtoken for each request's token, which takes a KeyObject as well as
          // a PEM: parsed once here, not at every call (a PEM parse cost as much CPU as the RS256 signature itself).
          secretKey: createPrivateKey(settings.secretKey) as unknown as string,
          basePath: settings.baseUrl,
          additionalOptions: {
            isAnonymousPlatform: true,
            userAgent: 'mountain',
            baseOptions: { timeout: CALL_TIMEOUT_MS, maxContentLength: 4 * 1024 * 1024 },
          },
        }),
    );
    return loaded;
  };
  const pace = createPacer(settings.maxRps);
  // Look-ups (status polls) take at most half the budget: a create never queues behind a backlog of them.
  const paceReads = createPacer(Math.max(1, settings.maxRps / 2));
  const once = async <T>(call: (sdk: Fireblocks) => Promise<FireblocksResponse<T>>): Promise<T> => {
    const client = await sdk();
    await pace();
    try {
      return (await call(client)).data;
    } catch (error) {
      throw classify(error);
    }
  };
  return {
    sdk,
    write: once,
    async read(call) {
      for (let attempt = 1; ; attempt++) {
        try {
          await paceReads();
          return await once(call);
        } catch (error) {
          const failure = error as FireblocksCallError;
          if (failure.failure === 'refused' || attempt >= READ_TRIES) throw error;
          await sleep(failure.retryAfterMs ?? 250 * 2 ** attempt * (0.5 + Math.random()));
        }
      }
    },
  };
}

/**
 * The SDK throws a FireblocksError (not an Error) carrying the axios answer: status, Fireblocks' `{ message, code }`
 * body and headers; without an answer, the transport's message. The SDK's error is not kept as the cause: it holds
 * the request, whose bearer token must not reach a log.
 */
export function classify(error: unknown): FireblocksCallError {
  if (error instanceof FireblocksCallError) return error;
  const e = error as {
    message?: unknown;
    response?: { statusCode?: number; data?: { message?: unknown; code?: unknown }; headers?: Record<string, string> };
  };
  const status = e?.response?.statusCode;
  const body = e?.response?.data;
  const fireblocksCode =
    typeof body?.code === 'number' ? body.code : Number.isInteger(Number(body?.code)) ? Number(body?.code) : undefined;
  const said =
    typeof body?.message === 'string' ? body.message : typeof e?.message === 'string' ? e.message : 'no answer';
  const retryAfter = Number(e?.response?.headers?.['retry-after']);
  const retryAfterMs = Number.isFinite(retryAfter) && retryAfter >= 0 ? Math.min(retryAfter, 60) * 1000 : undefined;
  if (status === undefined) {
    return new FireblocksCallError(
      `Fireblocks did not answer: ${said}`,
      'unavailable',
      undefined,
      undefined,
      undefined,
    );
  }
  const failure: FireblocksFailure = status === 429 ? 'rate-limited' : status >= 500 ? 'unavailable' : 'refused';
  const message = `Fireblocks answered ${status}${fireblocksCode !== undefined ? ` (code ${fireblocksCode})` : ''}: ${said}`;
  return new FireblocksCallError(message, failure, status, fireblocksCode, retryAfterMs);
}
