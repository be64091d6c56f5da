import type { FormFieldDef } from '../../../db/schema/forms';
import { COUNTRY_SELECT_OPTIONS } from '~/models/crm/countries';
import { ATTACHMENT_ACCEPT } from '~/models/productivity/constants';
import { FILE_FIELD_NAME } from '~/models/forms/constants';
import { ErrorList } from '~/components/ui/forms';

type Values = Record<string, unknown> | undefined;
type Errors = Record<string, string[] | null | undefined> | undefined;

const AUTOCOMPLETE: Record<string, string> = {
  full_name: 'name',
  email: 'email',
  company: 'organization',
  job_title: 'organization-title',
  phone: 'tel',
  website: 'url',
  country: 'country',
};
const INPUT_TYPE: Record<string, string> = { email: 'email', phone: 'tel', website: 'text' };

/**
 * The fields of a public form as plain HTML (no script needed): the public page renders them live and the builder
 * renders them disabled as its preview. Values typed before a refusal come back through `values`.
 */
export function PublicFormFields({ fields, values, errors, disabled, idPrefix = 'pf' }: { fields: FormFieldDef[]; values?: Values; errors?: Errors; disabled?: boolean; idPrefix?: string }) {
  return (
    <>
      {fields.map((field) => {
        const id = `${idPrefix}-${field.key}`;
        const value = typeof values?.[field.key] === 'string' ? (values[field.key] as string) : '';
        const errs = field.type === 'file' ? errors?.[FILE_FIELD_NAME] : errors?.[field.key];
        const describedBy = errs?.length ? `${id}-error` : undefined;
        const label = (
          <>
            {field.label}
            {field.required ? <span aria-hidden="true"> *</span> : <span className="muted"> (optional)</span>}
          </>
        );
        const common = { id, name: field.key, disabled, required: field.required, 'aria-invalid': errs?.length ? true : undefined, 'aria-describedby': describedBy };
        let control;
        if (field.type === 'long_text') control = <textarea {...common} rows={5} maxLength={2000} defaultValue={value} />;
        else if (field.type === 'country')
          control = (
            <select {...common} defaultValue={value} autoComplete="country">
              <option value="">Choose a country</option>
              {COUNTRY_SELECT_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          );
        else if (field.type === 'choice')
          return (
            <fieldset key={field.key} className="field" aria-describedby={describedBy}>
              <legend>{label}</legend>
              {(field.options ?? []).map((o, i) => (
                <label key={o} className="row">
                  <input type="radio" name={field.key} id={i === 0 ? id : undefined} value={o} defaultChecked={value === o} disabled={disabled} required={field.required} /> {o}
                </label>
              ))}
              <ErrorList id={`${id}-error`} errors={errs} />
            </fieldset>
          );
        else if (field.type === 'consent')
          return (
            <div key={field.key} className="field">
              <label className="row">
                <input type="checkbox" {...common} defaultChecked={value === 'on'} /> {label}
              </label>
              <ErrorList id={`${id}-error`} errors={errs} />
            </div>
          );
        else if (field.type === 'file')
          control = (
            <>
              <input id={id} type="file" name={FILE_FIELD_NAME} multiple accept={ATTACHMENT_ACCEPT} disabled={disabled} aria-describedby={`${id}-hint${describedBy ? ` ${describedBy}` : ''}`} />
              <small id={`${id}-hint`} className="muted">
                Up to 3 files of at most 10 MB each: images, PDF or text.
              </small>
            </>
          );
        else control = <input {...common} type={INPUT_TYPE[field.type] ?? 'text'} autoComplete={AUTOCOMPLETE[field.type] ?? 'off'} maxLength={field.type === 'email' ? 254 : 200} defaultValue={value} />;
        return (
          <div key={field.key} className="field">
            <label htmlFor={id}>{label}</label>
            {control}
            <ErrorList id={`${id}-error`} errors={errs} />
          </div>
        );
      })}
    </>
  );
}
