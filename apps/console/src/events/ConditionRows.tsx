import { Field } from '../ui/Field.tsx';
import { Numbered } from './Numbered.tsx';
import { AddRow, RemoveRow, updateRow } from './rowEditing.tsx';
import { type ConditionRow, type EventParameter, MAX_CONDITIONS, nextRowId, type WatchErrors } from './watchForm.ts';
import { type ConditionOp, OPS } from './watchSummary.ts';

/**
 * Conditions on decoded values, a row each: the parameter (among the first event's), the operator and the value.
 * Every condition must hold for a log to be recorded.
 */
export function ConditionRows({
  rows,
  onChange,
  parameters,
  errors,
}: {
  rows: ConditionRow[];
  onChange: (change: (rows: ConditionRow[]) => ConditionRow[]) => void;
  /** The first event's parameters. */
  parameters: EventParameter[];
  errors: WatchErrors;
}) {
  const set = updateRow(onChange);
  return (
    <fieldset>
      <legend>Conditions on values</legend>
      <p className="hint">
        Optional: only the events whose values meet every condition. Integers compare as numbers (&gt;, ≥, &lt;, ≤ are
        for them); addresses and bytes ignore case.
      </p>
      {errors.conditions && <p className="field-error">{errors.conditions}</p>}
      {rows.map((row, i) => (
        <div className="watch-row condition-row" key={row.id}>
          <Field
            label={<Numbered what="Condition" n={i + 1} part="Parameter" />}
            error={errors[`condition.${i}.field`]}
          >
            <select value={row.field} onChange={(e) => set(row.id, { field: e.target.value })}>
              <option value="">{parameters.length > 0 ? 'Choose…' : 'Write the first event above'}</option>
              {row.field !== '' && !parameters.some((p) => p.key === row.field) && (
                <option value={row.field}>{row.field}</option>
              )}
              {parameters.map((p) => (
                <option key={p.key} value={p.key}>
                  {p.key} ({p.type})
                </option>
              ))}
            </select>
          </Field>
          <Field label={<Numbered what="Condition" n={i + 1} part="Operator" />} error={errors[`condition.${i}.op`]}>
            <select value={row.op} onChange={(e) => set(row.id, { op: e.target.value as ConditionOp })}>
              {OPS.map((o) => (
                <option key={o.op} value={o.op}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label={<Numbered what="Condition" n={i + 1} part="Value" />}
            hint={row.op === 'in' ? 'Values separated by commas.' : undefined}
            error={errors[`condition.${i}.value`]}
          >
            <input value={row.value} onChange={(e) => set(row.id, { value: e.target.value })} spellCheck={false} />
          </Field>
          <RemoveRow what="condition" n={i + 1} id={row.id} onChange={onChange} />
        </div>
      ))}
      <AddRow
        label="Add a condition"
        count={rows.length}
        max={MAX_CONDITIONS}
        make={(): ConditionRow => ({ id: nextRowId(), field: '', op: 'eq', value: '' })}
        onChange={onChange}
      />
    </fieldset>
  );
}
