import { setTimeout as sleep } from 'node:timers/promises';
import type { KMSClient } from '@aws-sdk/client-kms';
import { BaseError } from '#api/errors/BaseError.ts';
import type { AwsKmsSettings } from './settings.ts';

/** How a call to KMS went wrong, which decides what the caller may do next. */
export type KmsFailure =
  /** KMS refused the request (access denied, not found, invalid…): the same request will be refused again. */
  | 'refused'
  /** The key is disabled or pending deletion: nothing signs until someone enables it again. */
  | 'key-unusable'
  /** Throttled, a 5xx, or no answer, through every retry: try again later. */
  | 'unavailable';

/**
 * A key that cannot be a wallet's (another spec or usage, disabled, pending deletion): refused before any use
 * (kmsKeys.ts). Here, beside the calls' own error, so that the registry's entry judges both without loading the
 * curve code.
 */
export class KmsKeyRefusedError extends BaseError {
  override name = 'KmsKeyRefusedError';
  readonly code = 'INTERNAL_ERROR';
}

/** A call to KMS that failed, with AWS's exception name and message (never the request's credentials). */
export class KmsCallError extends BaseError {
  override name = 'KmsCallError';
  readonly code = 'INTERNAL_ERROR';
  constructor(
    message: string,
    readonly failure: KmsFailure,
    /** AWS's exception name (`DisabledException`…), or undefined when KMS did not answer. */
    readonly awsName: string | undefined,
  ) {
    super(message);
  }
}

/** A KMS answer must come within this long (from the request's start, its connection included). */
const CALL_TIMEOUT_MS = 10_000;
/** Tries of one call on throttling, 5xx and no answer before its error reaches the caller. */
const TRIES = 4;

/** Exceptions of keys in a state that cannot sign (KMS "Key states of AWS KMS keys"). */
const KEY_UNUSABLE = new Set(['DisabledException', 'KMSInvalidStateException']);
/** Exceptions that say "not now" (AWS's retryable errors of KMS). */
const RETRYABLE = new Set([
  'ThrottlingException',
  'KMSInternalException',
  'DependencyTimeoutException',
  'ServiceUnavailableException',
  'InternalFailure',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** The SDK's module: its client and command classes. */
export type KmsSdk = typeof import('@aws-sdk/client-kms');

/**
 * The official SDK (`@aws-sdk/client-kms`) with what every caller needs around it: errors classified
 * (KmsCallError), throttling, 5xx and lost connections retried with exponential backoff and jitter (the SDK's own
 * retries are off, so one schedule applies), and a timeout on every call (the client's request handler's, so that
 * `client.send(command)` takes no per-call options and the SDK reuses its resolved middleware for each command
 * class: a third of its CPU per Sign). The SDK is loaded at the first call: a process that never uses KMS (most
 * admin commands) does not pay for loading it.
 */
export interface KmsApi {
  call<T>(name: string, send: (kms: { client: KMSClient; sdk: KmsSdk }) => Promise<T>): Promise<T>;
}

export function createKmsApi(
  settings: AwsKmsSettings,
  options: { retryBaseMs?: number; callTimeoutMs?: number } = {},
): KmsApi {
  const timeout = options.callTimeoutMs ?? CALL_TIMEOUT_MS;
  let loaded: Promise<{ client: KMSClient; sdk: KmsSdk }> | undefined;
  const load = () => {
    loaded ??= import('@aws-sdk/client-kms').then((sdk) => ({
      sdk,
      client: new sdk.KMSClient({
        region: settings.region,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        ...(settings.credentials ? { credentials: settings.credentials } : {}),
        maxAttempts: 1,
        cacheMiddleware: true,
        requestHandler: {
          connectionTimeout: timeout,
          requestTimeout: timeout,
          throwOnRequestTimeout: true,
        },
      }),
    }));
    return loaded;
  };
  const base = options.retryBaseMs ?? 100;
  return {
    async call(name, send) {
      const kms = await load();
      for (let attempt = 1; ; attempt++) {
        try {
          return await send(kms);
        } catch (error) {
          const failure = classify(name, error);
          if (failure.failure !== 'unavailable' || attempt >= TRIES) throw failure;
          await sleep(base * 2 ** (attempt - 1) * (0.5 + Math.random()));
        }
      }
    },
  };
}

/**
 * The SDK throws its exception classes (name = AWS's `__type`, `$metadata.httpStatusCode`); without an answer, the
 * transport's error. Only the name and message are kept: the SDK's error holds the request.
 */
export function classify(action: string, error: unknown): KmsCallError {
  if (error instanceof KmsCallError) return error;
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  const said = typeof e?.message === 'string' && e.message ? e.message : name;
  if (status === undefined) {
    return new KmsCallError(`AWS KMS did not answer ${action}: ${said}`, 'unavailable', undefined);
  }
  const failure: KmsFailure = KEY_UNUSABLE.has(name)
    ? 'key-unusable'
    : RETRYABLE.has(name) || status >= 500 || status === 429
      ? 'unavailable'
      : 'refused';
  return new KmsCallError(`AWS KMS answered ${action} with ${name}: ${said}`, failure, name);
}
