import type { Chains } from '#api/chain/chains.ts';
import type { MasterKeys } from '#api/crypto/secretBox.ts';
import type { Db } from '#api/db/db.ts';
import type { DeliverySettings } from '#api/delivery/settings.ts';
import type { EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import type { Logger } from '#api/runtime/logger.ts';
import type { TransactionSettings } from '#api/transactions/settings.ts';
import type { SignerProvider } from '#api/wallets/signer.ts';

/** What jobs may use. Built once per worker process (or by a test) and handed to every job's `run`. */
export interface WorkerDeps {
  db: Db;
  chains: Chains;
  signers: SignerProvider;
  /** Decrypts secrets at rest (webhook secrets). */
  masterKey: MasterKeys;
  /** Aborted when the process shuts down. */
  signal: AbortSignal;
  /** Event notifier settings; the development defaults when absent. */
  eventNotifier?: EventNotifierSettings;
  /** Webhook delivery settings; the defaults (no private webhook address) when absent. */
  delivery?: DeliverySettings;
  /** Transaction pipeline settings over the defaults (tests shorten timeouts). */
  transactions?: Partial<TransactionSettings>;
  /** Where the worker logs (pino, as the API); warnings and errors to stderr when absent. */
  log?: Logger;
  /** How often the sweep looks for work whose job was lost (see jobs/sweep.ts); 5 s when absent. */
  sweepIntervalMs?: number;
}
