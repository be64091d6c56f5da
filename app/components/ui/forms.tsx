import { getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from '@conform-to/react';
import type { InputHTMLAttributes, ReactNode } from 'react';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyField = FieldMetadata<any, any, any>;

export function ErrorList({ id, errors }: { id?: string; errors?: string[] | null }) {
  if (!errors?.length) return null;
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

/** A labelled input bound to a conform field: shows back what was typed and the field's errors under it. */
export function Field({
  label,
  field,
  type = 'text',
  hint,
  ...rest
}: { label: ReactNode; field: AnyField; type?: 'text' | 'email' | 'password' | 'number' | 'url' | 'tel' | 'search' | 'time' | 'date' | 'datetime-local'; hint?: ReactNode } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'type' | 'name' | 'id'
>) {
  const props = getInputProps(field as FieldMetadata<string>, { type, ariaAttributes: true });
  const { key, ...inputProps } = props;
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      <input key={key} {...inputProps} {...rest} />
      {hint ? <small className="muted">{hint}</small> : null}
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

export function SelectField({
  label,
  field,
  options,
  placeholder,
  disabled,
}: {
  label: ReactNode;
  field: AnyField;
  options: readonly { value: string; label: string }[];
  placeholder?: string;
  disabled?: boolean;
}) {
  const { key, ...props } = getSelectProps(field as FieldMetadata<string>, { ariaAttributes: true });
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      <select key={key} {...props} disabled={disabled}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

export function TextareaField({ label, field, rows = 3, disabled, maxLength }: { label: ReactNode; field: AnyField; rows?: number; disabled?: boolean; maxLength?: number }) {
  const { key, ...props } = getTextareaProps(field as FieldMetadata<string>, { ariaAttributes: true });
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      <textarea key={key} {...props} rows={rows} disabled={disabled} maxLength={maxLength} />
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

export function CheckboxField({ label, field, disabled }: { label: ReactNode; field: AnyField; disabled?: boolean }) {
  const { key, ...props } = getInputProps(field as FieldMetadata<boolean>, { type: 'checkbox', ariaAttributes: true });
  return (
    <div className="field">
      <label className="check">
        <input key={key} {...props} disabled={disabled} /> {label}
      </label>
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}
