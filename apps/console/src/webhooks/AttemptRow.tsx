import { CopyButton } from '../ui/CopyButton.tsx';
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
export function AttemptRow({ attempt: a, onReplay }: { attempt: WebhookAttempt; onReplay?: () => void }) {
  return (
    <tr>
      <td>{formatTime(a.attemptedAt)}</td>
      <td>
        <span className="mono">{a.eventType}</span>
        <div className="hex">
          <span className="muted mono" title={`Message ${a.webhookId}`}>
            {shortHex(a.webhookId, 8)}
          </span>
          <CopyButton value={a.webhookId} what="message id (webhook-id)" />
        </div>
      </td>
      <td>
        <span className="mono truncate" title={a.url}>
          {a.url}
        </span>
      </td>
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
      <td>
        {onReplay && (
          <button
            type="button"
            onClick={onReplay}
            aria-label={`Replay the messages around the attempt of ${formatTime(a.attemptedAt)}`}
          >
            Replay…
          </button>
        )}
      </td>
    </tr>
  );
}
