import { Field } from '../ui/Field.tsx';
import { Numbered } from './Numbered.tsx';
import { AddRow, RemoveRow, updateRow } from './rowEditing.tsx';
import { type EventParameter, type FilterRow, MAX_FILTERS, nextRowId, type WatchErrors } from './watchForm.ts';

/**
 * Filters on indexed parameters, a row each: the parameter (among the first event's indexed ones) and the values
 * it may have, one per line. A log is recorded when each filtered parameter has one of its values.
 */
export function FilterRows({
  rows,
  onChange,
  parameters,
  errors,
}: {
  rows: FilterRow[];
  onChange: (change: (rows: FilterRow[]) => FilterRow[]) => void;
  /** The first event's indexed parameters. */
  parameters: EventParameter[];
  errors: WatchErrors;
}) {
  const set = updateRow(onChange);
  return (
    <fieldset>
      <legend>Filters on indexed parameters</legend>
      <p className="hint">
        Optional: only the logs whose parameter has one of the values (any of a filter's values, and every filter). The
        node applies them, so a filtered scan reads less.
      </p>
      {errors.filters && <p className="field-error">{errors.filters}</p>}
      {rows.map((row, i) => (
        <div className="watch-row filter-row" key={row.id}>
          <Field label={<Numbered what="Filter" n={i + 1} part="Parameter" />} error={errors[`filter.${i}.parameter`]}>
            <select value={row.parameter} onChange={(e) => set(row.id, { parameter: e.target.value })}>
              <option value="">{parameters.length > 0 ? 'Choose…' : 'Write the first event above'}</option>
              {row.parameter !== '' && !parameters.some((p) => p.key === row.parameter) && (
                <option value={row.parameter}>{row.parameter}</option>
              )}
              {parameters.map((p) => (
                <option key={p.key} value={p.key}>
                  {p.key} ({p.type})
                </option>
              ))}
            </select>
          </Field>
          <Field
            label={<Numbered what="Filter" n={i + 1} part="Values" />}
            hint="One per line."
            error={errors[`filter.${i}.values`]}
          >
            <textarea
              className="short"
              rows={2}
              value={row.values}
              onChange={(e) => set(row.id, { values: e.target.value })}
              spellCheck={false}
            />
          </Field>
          <RemoveRow what="filter" n={i + 1} id={row.id} onChange={onChange} />
        </div>
      ))}
      <AddRow
        label="Add a filter"
        count={rows.length}
        max={MAX_FILTERS}
        make={() => ({ id: nextRowId(), parameter: '', values: '' })}
        onChange={onChange}
      />
      {rows.length >= MAX_FILTERS && <span className="hint"> At most {MAX_FILTERS} filtered parameters.</span>}
    </fieldset>
  );
}
