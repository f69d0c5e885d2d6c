import { messageOf } from '../api/errors.ts';

/** A failed load or action, with a retry when there is one. */
export function ErrorNotice({ error, onRetry, title }: { error: unknown; onRetry?: () => void; title?: string }) {
  return (
    <div className="notice error" role="alert">
      <p>
        <strong>{title ?? 'Something went wrong.'}</strong> {messageOf(error)}
      </p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
