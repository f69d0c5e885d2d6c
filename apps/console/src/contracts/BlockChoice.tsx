import { useId } from 'react';

/** Where a read is evaluated: a tag the node resolves, or a block number. */
export type BlockChoiceValue = { tag: 'latest' | 'safe' | 'finalized' | 'number'; number: string };

export const LATEST: BlockChoiceValue = { tag: 'latest', number: '' };

/** The API's `blockTag` of a choice, or an error for a number that is not one. */
export function blockTagOf(choice: BlockChoiceValue): { blockTag: string } | { error: string } {
  if (choice.tag !== 'number') return { blockTag: choice.tag };
  const number = choice.number.trim();
  return /^(0|[1-9]\d{0,15})$/.test(number) ? { blockTag: number } : { error: 'A block number, in decimal digits' };
}

/** The block of a read: latest (the default), safe, finalized, or a number typed in. */
export function BlockChoice({
  value,
  onChange,
  error,
  disabled,
}: {
  value: BlockChoiceValue;
  onChange: (value: BlockChoiceValue) => void;
  error?: string | undefined;
  disabled?: boolean;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="row">
      <div className="field">
        <label htmlFor={`${id}-tag`}>Block</label>
        <select
          id={`${id}-tag`}
          value={value.tag}
          onChange={(event) => onChange({ ...value, tag: event.target.value as BlockChoiceValue['tag'] })}
          disabled={disabled}
        >
          <option value="latest">latest</option>
          <option value="safe">safe</option>
          <option value="finalized">finalized</option>
          <option value="number">a block number</option>
        </select>
      </div>
      {value.tag === 'number' && (
        <div className="field">
          <label htmlFor={`${id}-number`}>Block number</label>
          <input
            id={`${id}-number`}
            value={value.number}
            onChange={(event) => onChange({ ...value, number: event.target.value })}
            inputMode="numeric"
            spellCheck={false}
            autoComplete="off"
            aria-describedby={error ? errorId : undefined}
            aria-invalid={error ? true : undefined}
            disabled={disabled}
          />
          {error && (
            <span className="field-error" id={errorId}>
              {error}
            </span>
          )}
        </div>
      )}
    </div>
  );
}
