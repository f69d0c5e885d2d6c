// One ABI parameter as form controls, recursively: a text box (or a true/false choice) for a leaf, a group with
// add and remove for a dynamic array, a group of components for a tuple. Each control's error shows beside it.
import { useId } from 'react';
import type { AbiParameter } from 'viem';
import { arrayOf, componentsOf, emptyValue, type FormValue, segment } from './abiValues.ts';

interface Props {
  param: AbiParameter;
  /** The parameter's name as a path (`amount`, `values[0]`, `point.x`); its label adds the type. */
  name: string;
  value: FormValue;
  onChange: (value: FormValue) => void;
  /** This parameter's path (`[0]`, `[1].amount`), the key of its errors. */
  path: string;
  errors: Record<string, string>;
  disabled?: boolean;
}

const PLACEHOLDERS: Record<string, string> = {
  address: '0x… (40 hex digits)',
  string: 'text',
  bytes: '0x…',
};

function placeholderOf(type: string): string {
  if (/^u?int\d*$/.test(type)) return `${type}: decimal or 0x hex`;
  if (/^bytes\d+$/.test(type)) return `0x… (${type.slice(5)} bytes)`;
  return PLACEHOLDERS[type] ?? type;
}

export function AbiParamInput({ param, name, value, onChange, path, errors, disabled }: Props) {
  const id = useId();
  const label = `${name} (${param.type})`;
  const error = errors[path];
  const array = arrayOf(param);
  const components = componentsOf(param);
  if (array || components) {
    const items = Array.isArray(value) ? value : [];
    const set = (index: number, next: FormValue) => onChange(items.map((item, i) => (i === index ? next : item)));
    return (
      <fieldset aria-describedby={error ? `${id}-error` : undefined}>
        <legend>{label}</legend>
        {array
          ? items.map((item, i) => (
              // An element is its position: the API reads arrays by index, and so does the form.
              // biome-ignore lint/suspicious/noArrayIndexKey: elements have no identity but their index
              <div key={`${path}[${i}]`} className="row">
                <div style={{ flex: 1 }}>
                  <AbiParamInput
                    param={array.element}
                    name={`${name}[${i}]`}
                    value={item}
                    onChange={(next) => set(i, next)}
                    path={`${path}[${i}]`}
                    errors={errors}
                    disabled={disabled}
                  />
                </div>
                {array.length === undefined && (
                  <button
                    type="button"
                    onClick={() => onChange(items.filter((_, j) => j !== i))}
                    aria-label={`Remove ${name}[${i}]`}
                    disabled={disabled}
                  >
                    Remove
                  </button>
                )}
              </div>
            ))
          : components?.map((component, i) => (
              <AbiParamInput
                key={`${path}${segment(component, i)}`}
                param={component}
                name={`${name}${segment(component, i)}`}
                value={items[i] ?? emptyValue(component)}
                onChange={(next) => set(i, next)}
                path={`${path}${segment(component, i)}`}
                errors={errors}
                disabled={disabled}
              />
            ))}
        {array && array.length === undefined && (
          <button type="button" onClick={() => onChange([...items, emptyValue(array.element)])} disabled={disabled}>
            Add an element to {name}
          </button>
        )}
        {error && (
          <p className="field-error" id={`${id}-error`}>
            {error}
          </p>
        )}
      </fieldset>
    );
  }
  const describedBy = error ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {param.type === 'bool' ? (
        <select
          id={id}
          value={typeof value === 'string' ? value : 'false'}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          disabled={disabled}
        >
          <option value="false">false</option>
          <option value="true">true</option>
        </select>
      ) : (
        <input
          id={id}
          value={typeof value === 'string' ? value : ''}
          onChange={(event) => onChange(event.target.value)}
          placeholder={placeholderOf(param.type)}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          disabled={disabled}
        />
      )}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}
