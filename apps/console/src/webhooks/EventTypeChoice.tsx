import { useId } from 'react';
import { EVENT_TYPES, type EventType } from './useWebhooks.ts';

/** The event types an endpoint takes, as a group of check boxes, with the group's error beside it. */
export function EventTypeChoice({
  chosen,
  onChange,
  error,
}: {
  chosen: EventType[];
  onChange: (types: EventType[]) => void;
  error?: string | undefined;
}) {
  const errorId = useId();
  return (
    <fieldset className="field" aria-describedby={error ? errorId : undefined}>
      <legend>Event types</legend>
      <div className="checks">
        {EVENT_TYPES.map((type) => (
          <label key={type} className="row">
            <input
              type="checkbox"
              checked={chosen.includes(type)}
              onChange={(e) =>
                onChange(e.target.checked ? [...chosen, type] : chosen.filter((chosenType) => chosenType !== type))
              }
            />
            <span className="mono">{type}</span>
          </label>
        ))}
      </div>
      {error && (
        <span className="field-error" id={errorId}>
          {error}
        </span>
      )}
    </fieldset>
  );
}
