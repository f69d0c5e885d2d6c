import http from 'node:http';
import https from 'node:https';
import { parseRetryAfter } from '@mountain/public-api-client';
import { type AnyWebhookEvent, sign } from '@mountain/webhook-sdk';
import { causes } from '#api/lib/causes.ts';
import { type DeliveryOutcome, webhookDeliveries, webhookDuration } from '#api/metrics/instruments.ts';
import type { PrivateAddressAllowance } from './settings.ts';
import { guardedLookup } from './webhookUrlPolicy.ts';

/** The result of one delivery attempt. */
export type AttemptResult = (
  | { ok: true; status: number }
  | { ok: false; message: string; status?: number; retryAfterMs?: number }
) & {
  /** How the attempt ended (absent when no attempt was made). */
  outcome?: DeliveryOutcome;
  /** From the first byte sent to the answer's end. */
  durationMs?: number;
  /** The first 1 KB of the answer's body. */
  response?: string;
};

interface AttemptOptions {
  url: string;
  id: string;
  event: AnyWebhookEvent;
  /** One secret, or several during a rotation's grace period (one signature each). */
  secret: string | readonly string[];
  timeoutMs: number;
  /** Addresses the connection may go to (checked when connecting, after DNS). */
  allowance: PrivateAddressAllowance;
}

/**
 * POSTs one signed webhook (Standard Webhooks headers, `webhook-id` = the record id) and classifies the answer:
 * 2xx is delivered; anything else (other statuses, redirects, timeouts, connection errors) is a failed attempt.
 * Each attempt is counted and timed by outcome (`mountain_webhook_deliveries_total`).
 */
export async function sendWebhook(options: AttemptOptions): Promise<AttemptResult> {
  const started = performance.now();
  const [outcome, result] = await attempt(options);
  const durationMs = performance.now() - started;
  webhookDeliveries.inc({ outcome });
  webhookDuration.observe({ outcome }, durationMs / 1000);
  return { ...result, outcome, durationMs: Math.round(durationMs) };
}

/** Counts a webhook the URL policy refused, without an attempt. */
export function countRefusedWebhook(): void {
  webhookDeliveries.inc({ outcome: 'refused' });
}

async function attempt(options: AttemptOptions): Promise<[DeliveryOutcome, AttemptResult]> {
  const body = JSON.stringify(options.event);
  const headers = await sign({ id: options.id, body, secret: options.secret });
  let response: { status: number; statusText: string; retryAfter: string | null; body: string };
  try {
    response = await post(
      new URL(options.url),
      { ...headers, ...JSON_HEADERS },
      body,
      options.timeoutMs,
      options.allowance,
    );
  } catch (error) {
    if (error instanceof AttemptTimeout) {
      return ['timeout', { ok: false, message: `No answer within ${options.timeoutMs} ms` }];
    }
    return ['connection_error', { ok: false, message: `Connection failed: ${connectionReason(error)}` }];
  }
  if (response.status >= 200 && response.status < 300) {
    return ['delivered', { ok: true, status: response.status, response: response.body }];
  }
  const retryAfterMs =
    response.status === 429 || response.status === 503 ? parseRetryAfter(response.retryAfter) : undefined;
  return [
    'http_error',
    {
      ok: false,
      status: response.status,
      message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      response: response.body,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    },
  ];
}

/** How much of an answer's body an attempt keeps. */
const RESPONSE_KEPT_BYTES = 1024;

const JSON_HEADERS = { 'content-type': 'application/json', 'user-agent': 'Mountain-Webhooks/1.0' };

// Keep-alive connections per receiver: node:http is several times cheaper per request than fetch, which matters
// when a backfill sends thousands of webhooks a second.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

class AttemptTimeout extends Error {
  override name = 'AttemptTimeout';
}

/** One POST; redirects are not followed (a redirect could lead anywhere, including a private address). */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  allowance: PrivateAddressAllowance,
): Promise<{ status: number; statusText: string; retryAfter: string | null; body: string }> {
  return new Promise((resolve, reject) => {
    const https_ = url.protocol === 'https:';
    const request = (https_ ? https : http).request(
      url,
      {
        method: 'POST',
        agent: agents[https_ ? 'https:' : 'http:'],
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(allowance === 'all' ? {} : { lookup: guardedLookup(allowance) }),
      },
      (response) => {
        // The first 1 KB of the answer is kept (for the attempt log); the rest is read and dropped.
        const kept: Buffer[] = [];
        let keptBytes = 0;
        response.on('data', (chunk: Buffer) => {
          if (keptBytes >= RESPONSE_KEPT_BYTES) return;
          kept.push(chunk.subarray(0, RESPONSE_KEPT_BYTES - keptBytes));
          keptBytes += Math.min(chunk.length, RESPONSE_KEPT_BYTES - keptBytes);
        });
        response.once('end', () => {
          clearTimeout(timer);
          const retryAfter = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? '',
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            body: Buffer.concat(kept).toString('utf8'),
          });
        });
        response.once('error', fail);
      },
    );
    const timer = setTimeout(() => request.destroy(new AttemptTimeout()), timeoutMs);
    function fail(error: Error) {
      clearTimeout(timer);
      reject(error);
    }
    request.once('error', fail);
    request.end(body);
  });
}

function connectionReason(error: unknown): string {
  for (const e of causes(error)) {
    if (e.code === 'EADDRREFUSED') return typeof e.message === 'string' ? e.message : e.code;
    if (typeof e.code === 'string') return e.code;
    if (!e.cause) return typeof e.message === 'string' ? e.message : 'unknown error';
  }
  return 'unknown error';
}
