import type { AnyWebhookEvent } from '@mountain/webhook-sdk';
import type { Db, Queryable } from '#api/db/db.ts';
import type { AttemptResult } from './webhookSender.ts';

/** A message claimed for one attempt. */
export interface Claimed {
  /** The message's id: its `webhook-id`, and its row in the attempt log. */
  id: string;
  /** Failed attempts of its current round (a resend or replay starts a new round). */
  roundFailures: number;
  /** Retries it is allowed before it is failed. */
  maxRetries: number;
}

/** How one claimed message's attempt ended, and what follows. */
export interface Outcome<C extends Claimed = Claimed> {
  claimed: C;
  result: AttemptResult;
  /** Failed with no retry left (or with no payload to send): the message is failed. */
  final: boolean;
  /** Failed and not final: the delay before its next attempt. */
  delayMs: number;
}

/** What a destination disabled for failing tells the project's endpoints (a message of `eventType`). */
export interface DisabledNotice {
  eventType: 'endpoint.disabled' | 'subscription.webhook_disabled';
  data: Record<string, unknown>;
}

/**
 * Where messages are delivered: a project's webhook endpoint (webhooks/delivery/deliverEndpoint.ts) or a
 * subscription's own webhook (eventNotifier/delivery/delivery.ts). A destination knows its rows;
 * the pipeline (deliver.ts) claims through it, sends, schedules retries, logs attempts and disables it.
 */
export interface Destination<C extends Claimed = Claimed> {
  readonly projectId: number;
  readonly url: string;
  /** The secrets that sign: one, or two during a rotation's grace period. */
  readonly secrets: string | readonly string[];
  /** How the attempt log names the destination. */
  readonly logAs: { endpointId: string | null; subscriptionId: string | null };
  /**
   * Up to `limit` messages whose attempt is due, each held for `leaseMs` (`FOR UPDATE SKIP LOCKED`, so several
   * workers never send one message at once, and one that dies mid-batch only delays it).
   */
  claim(db: Db, limit: number, leaseMs: number): Promise<C[]>;
  /** The payload of each claimed message, in order; undefined for one whose event no longer exists. */
  payloads(db: Db, claimed: readonly C[]): Promise<(AnyWebhookEvent | undefined)[]>;
  /**
   * Writes the outcomes, in the caller's database transaction (the attempt log and the failure streak follow in it).
   * False when the destination is gone, and nothing is to be recorded.
   */
  record(client: Queryable, outcomes: readonly Outcome<C>[]): Promise<boolean>;
  /**
   * Any delivered attempt ends the failure streak; otherwise it starts at `attemptedAt` unless it has already.
   * Answers when the streak started (null when there is none).
   */
  failureStreak(client: Queryable, delivered: boolean, attemptedAt: Date): Promise<Date | null>;
  /**
   * Disables the destination (with `reason`), and fails its messages waiting for an attempt (kept for a replay).
   * Answers what the project's endpoints are told, or undefined when it was disabled already.
   */
  disable(client: Queryable, reason: string): Promise<DisabledNotice | undefined>;
  /** When its earliest attempt still pending is due (null when none is). */
  nextAttemptAt(db: Db): Promise<Date | null>;
}
