import { Field } from '../ui/Field.tsx';
import { ConditionRows } from './ConditionRows.tsx';
import { FilterRows } from './FilterRows.tsx';
import { parametersOf, type WatchErrors, type WatchForm } from './watchForm.ts';

/**
 * The controls of what a subscription watches beyond its first event and contract: more events, more contracts,
 * filters and conditions. The parameters offered are those of the first event (`firstEvent`); filters and
 * conditions apply to every event, and the API says when one does not fit another.
 */
export function WatchFields({
  form,
  onChange,
  firstEvent,
  errors,
}: {
  form: WatchForm;
  onChange: (change: (form: WatchForm) => WatchForm) => void;
  firstEvent: string;
  errors: WatchErrors;
}) {
  const parameters = parametersOf(firstEvent);
  return (
    <>
      <Field
        label="More events"
        hint="Optional, one per line: event Approval(address indexed owner, address indexed spender, uint256 value)"
        error={errors.events}
      >
        <textarea
          className="short"
          value={form.events}
          onChange={(e) => onChange((f) => ({ ...f, events: e.target.value }))}
          spellCheck={false}
        />
      </Field>
      <Field
        label="More contract addresses"
        hint="Optional, one per line: the events of these contracts too (1,000 contracts in all)."
        error={errors.addresses}
      >
        <textarea
          className="short"
          value={form.addresses}
          onChange={(e) => onChange((f) => ({ ...f, addresses: e.target.value }))}
          spellCheck={false}
          autoComplete="off"
        />
      </Field>
      <FilterRows
        rows={form.filters}
        onChange={(filters) => onChange((f) => ({ ...f, filters: filters(f.filters) }))}
        parameters={parameters.filter((p) => p.indexed)}
        errors={errors}
      />
      <ConditionRows
        rows={form.conditions}
        onChange={(conditions) => onChange((f) => ({ ...f, conditions: conditions(f.conditions) }))}
        parameters={parameters}
        errors={errors}
      />
    </>
  );
}
