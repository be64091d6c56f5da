import type { ReactNode } from 'react';
import type { ReplyReader } from './reply';

export function FieldErrors({ id, errors }: { id?: string; errors: string[] }) {
  if (!errors.length) return id ? <div id={id} /> : null;
  return (
    <div id={id}>
      {errors.map((e) => (
        <p key={e} className="field-error" role="alert">
          {e}
        </p>
      ))}
    </div>
  );
}

const idOf = (name: string) => `f-${name.replace(/[^a-zA-Z0-9]+/g, '-')}`;

/** A labelled text (or number, date) input named by its path, showing back what was typed and its errors. */
export function TextInput({
  r,
  name,
  label,
  type = 'text',
  hint,
  maxLength,
  min,
  max,
  placeholder,
}: {
  r: ReplyReader;
  name: string;
  label: ReactNode;
  type?: 'text' | 'number' | 'date' | 'email';
  hint?: ReactNode;
  maxLength?: number;
  min?: number | string;
  max?: number | string;
  placeholder?: string;
}) {
  const id = idOf(name);
  const errors = r.errors(name);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        defaultValue={r.text(name)}
        // The server judges lengths (ADR 027); the browser limit is a little above so the message can be seen.
        maxLength={maxLength ? maxLength + 50 : undefined}
        min={min}
        max={max}
        placeholder={placeholder}
        aria-invalid={errors.length > 0 || undefined}
        aria-describedby={errors.length ? `${id}-error` : undefined}
        autoComplete="off"
      />
      {hint ? <small className="muted">{hint}</small> : null}
      <FieldErrors id={`${id}-error`} errors={errors} />
    </div>
  );
}

export function TextArea({ r, name, label, rows = 3, hint }: { r: ReplyReader; name: string; label: ReactNode; rows?: number; hint?: ReactNode }) {
  const id = idOf(name);
  const errors = r.errors(name);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} rows={rows} defaultValue={r.text(name)} aria-invalid={errors.length > 0 || undefined} aria-describedby={errors.length ? `${id}-error` : undefined} />
      {hint ? <small className="muted">{hint}</small> : null}
      <FieldErrors id={`${id}-error`} errors={errors} />
    </div>
  );
}

export function Select({
  r,
  name,
  label,
  options,
  placeholder,
}: {
  r: ReplyReader;
  name: string;
  label: ReactNode;
  options: readonly { value: string | number; label: string }[];
  placeholder?: string;
}) {
  const id = idOf(name);
  const errors = r.errors(name);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={r.text(name)} aria-invalid={errors.length > 0 || undefined} aria-describedby={errors.length ? `${id}-error` : undefined}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldErrors id={`${id}-error`} errors={errors} />
    </div>
  );
}

export function Check({ r, name, label }: { r: ReplyReader; name: string; label: ReactNode }) {
  return (
    <div className="field">
      <label className="check">
        <input type="checkbox" name={name} defaultChecked={r.checked(name)} /> {label}
      </label>
      <FieldErrors errors={r.errors(name)} />
    </div>
  );
}

/** Radio buttons for one choice (a legend, then one label per value). */
export function Radios({ r, name, legend, options }: { r: ReplyReader; name: string; legend: ReactNode; options: readonly { value: string | number; label: string }[] }) {
  const current = r.text(name);
  return (
    <fieldset className="field">
      <legend>{legend}</legend>
      <div className="choice-grid">
        {options.map((o) => (
          <label key={o.value} className="check choice">
            <input type="radio" name={name} value={o.value} defaultChecked={current === String(o.value)} /> {o.label}
          </label>
        ))}
      </div>
      <FieldErrors errors={r.errors(name)} />
    </fieldset>
  );
}
