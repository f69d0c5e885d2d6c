import type { Hex } from 'viem';
import { BaseError } from '#api/errors/BaseError.ts';

/**
 * The two shapes of custody (DESIGN §6). A *signer* (from-mnemonic) gives the sender an account that signs; the
 * platform holds the nonce and broadcasts. A *submitter* (Fireblocks) takes the call and does nonce, signing and
 * broadcast itself, under its own policy engine: the platform submits one custodian transaction per row (the row's
 * id is the custodian's external id), follows the custodian's status until a hash exists, and from then on treats
 * the row like any other (receipts, confirmations, finality and reorgs come from the canonical chain).
 */
export interface Submitter {
  /** The name shown in a transaction's `custody.provider`. */
  readonly provider: string;
  /** How long between two looks at one unfinished custodian transaction (webhooks move it sooner). */
  readonly pollIntervalMs: number;
  /** Refuses (CustodyNotConfiguredError, naming the variable) a network the custodian has no asset for. */
  checkNetwork(networkId: number): void;
  /** Submits one row, exactly once whatever fails (see SubmitOutcome). */
  submit(call: CustodyCall): Promise<SubmitOutcome>;
  /** The custodian's view of one of its transactions. */
  status(custodyId: string): Promise<CustodianView>;
  /**
   * Cancels one of its transactions before it is signed: `cancelled` once the custodian took the cancel (its
   * status then says so), `too-late` when it is signed or sent already (then only a replacement can take it back).
   */
  cancel(custodyId: string, rowId: string): Promise<CustodyAnswer<{ kind: 'cancelled' } | { kind: 'too-late' }>>;
  /**
   * A custodian transaction of its own at the nonce of a sent, unmined one (see Replacement). Answers its id; its
   * hash comes with its status, as for any custodian transaction.
   */
  replace(replacement: Replacement): Promise<CustodyAnswer<{ kind: 'replacing'; id: string }>>;
}

/**
 * What replaces a sent, unmined custodian transaction at its nonce: a `drop` (cancel: a 0-value transfer to the
 * wallet itself, priced by the custodian above the original and the network), or a `boost` (speed-up: the row's
 * own call with the higher fees of `call`). `attempt` numbers the replacements of one row.
 */
export type Replacement =
  | { kind: 'drop'; custodyId: string; rowId: string; attempt: number }
  | { kind: 'boost'; replacesHash: Hex; call: CustodyCall; attempt: number };

/** A custodian's answer to an operation, or why there is none: refused for good, or not now. */
export type CustodyAnswer<T> = T | { kind: 'refused'; message: string } | { kind: 'retry'; message: string };

/** One row as the custodian gets it. */
export interface CustodyCall {
  /** The row's id: the custodian's external id, unique in its workspace. */
  rowId: string;
  /** The wallet's reference at the custodian (a Fireblocks vault account id). */
  custodyRef: string;
  networkId: number;
  to: string;
  /** The calldata; `0x` for a plain transfer of value. */
  data: Hex;
  /** Wei. */
  value: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** Numbers the create request's idempotency key: a retry after a 5xx must use a new one. */
  keyAttempt: number;
  /** An earlier attempt may have reached the custodian: look the row up before sending again. */
  inDoubt: boolean;
}

export type SubmitOutcome =
  /** The custodian has it (just created, or found by the row's id). */
  | { kind: 'submitted'; view: CustodianView }
  /** Refused for good (a 4xx): the row is broadcast-failed with this message. */
  | { kind: 'refused'; message: string }
  /** Not now (rate limit, 5xx, no answer): the row stays in doubt and is tried again after `afterMs`. */
  | { kind: 'retry'; message: string; afterMs: number; newKey: boolean };

/** A custodian transaction, in the terms the pipeline acts on. */
export interface CustodianView {
  id: string;
  status: string;
  subStatus: string | null;
  /** The hash it broadcast (the latest, after a speed-up or replacement); null before broadcast. */
  hash: Hex | null;
  /** A final status that is not a success (rejected, blocked, cancelled, failed). */
  failed: boolean;
  /** For `errorMessage`: the custodian's status, sub-status and description, in words. */
  description: string;
  /** When the custodian last changed it (its clock, ms since the epoch), when it says. */
  updatedMs: number | null;
}

/** A wallet type used where this deployment has no credentials for it, or a network its custodian has no asset for. */
export class CustodyNotConfiguredError extends BaseError {
  override name = 'CustodyNotConfiguredError';
  readonly code = 'CUSTODY_NOT_CONFIGURED';
  constructor(
    message: string,
    /** The environment variable that would fix it. */
    readonly variable: string,
  ) {
    super(message);
  }
}

/**
 * A signer custody that cannot sign now: its key is disabled or pending deletion, its key service does not answer,
 * or its signature does not recover to the wallet. The wallet's rows wait with this message (nothing is failed, no
 * nonce is released) and the sender looks again after `retryAfterMs`.
 */
export class SignerUnavailableError extends BaseError {
  override name = 'SignerUnavailableError';
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(
    message: string,
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Signers whose signature of the same transaction differs each time (a key service signs with a random k): the
 * sender keeps their signed bytes before broadcasting, so a row resumed after a crash is sent again as the same
 * transaction rather than as a second one with its nonce.
 */
const RANDOMIZED_SIGNERS = new Set(['aws-kms']);

export function signsRandomized(account: { source: string }): boolean {
  return RANDOMIZED_SIGNERS.has(account.source);
}
