import { formatTime, shortHex } from '../ui/format.ts';
import type { WebhookAttempt } from './useWebhooks.ts';

const OUTCOME_WORDS: Record<WebhookAttempt['outcome'], string> = {
  delivered: 'delivered',
  http_error: 'HTTP error',
  timeout: 'timeout',
  connection_error: 'connection error',
  refused: 'refused by policy',
};

/** One attempt: when, which message and type, where, how it ended, how long it took, and what the receiver said. */
export function AttemptRow({ attempt: a }: { attempt: WebhookAttempt }) {
  return (
    <tr>
      <td>{formatTime(a.attemptedAt)}</td>
      <td>
        <span className="mono">{a.eventType}</span>
        <div className="muted mono" title={a.webhookId}>
          {shortHex(a.webhookId, 8)}
        </div>
      </td>
      <td className="mono">{a.url}</td>
      <td>
        <span className={`badge ${a.outcome === 'delivered' ? 'status-succeeded' : 'status-failed'}`}>
          {OUTCOME_WORDS[a.outcome]}
        </span>
        {a.httpStatus !== null && <div className="muted">HTTP {a.httpStatus}</div>}
      </td>
      <td>{a.durationMs} ms</td>
      <td>
        {a.response ? (
          <details>
            <summary>{a.response.length > 40 ? `${a.response.slice(0, 40)}…` : a.response}</summary>
            <pre className="mono">{a.response}</pre>
          </details>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
    </tr>
  );
}
