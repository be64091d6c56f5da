import { getFormProps, getTextareaProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { PublicFormFields } from '~/components/forms/public-form-fields';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { BRAND_COLOUR_NAMES, BRAND_COLOURS, FIELD_TYPE_LABELS, FORM_FIELD_TYPES, type FormFieldType } from '~/models/forms/constants';
import { applyRowOperation, deleteForm, fieldDefsOf, FormInputError, getForm, saveForm, setFormStatus, type RowOperation } from '~/models/forms/forms.server';
import { FormBuilderSchema } from '~/models/forms/schemas';
import { listContactFormInboxes } from '~/models/productivity/contact-forms.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/enabled', await requireUser(request));
  const id = parseRouteId(params.id);
  const form = id ? await getForm({ accountId: ctx.account.id, id }) : undefined;
  if (!form) throw new Response('Not Found', { status: 404 });
  const inboxes = await listContactFormInboxes({ accountId: ctx.account.id });
  const publicUrl = accountUrl(request, ctx.account.domain, `/f/${form.code}`);
  return {
    form: {
      id: form.id,
      name: form.name,
      status: form.status,
      version: form.updatedAt.toISOString(),
      headerText: form.headerText,
      description: form.description,
      submitText: form.submitText,
      brandColour: form.brandColour,
      thankYouMessage: form.thankYouMessage,
      redirectUrl: form.redirectUrl ?? '',
      captcha: form.captcha,
      inboxId: form.inboxId ? String(form.inboxId) : '',
      fields: form.fields,
    },
    publicUrl,
    embed: `<iframe src="${publicUrl}" title="${form.name.replace(/[<>"&]/g, '')}" style="width:100%;min-height:640px;border:0" loading="lazy"></iframe>`,
    inboxes: inboxes.map((i) => ({ value: String(i.id), label: i.name })),
    locked: !can(ctx, 'manage_contact_form'),
  };
}

/** `save`, a row operation (`add`, `remove:i`, `up:i`, `down:i`: saved with the rest, ADR 067), `publish`, `unpublish`, `delete`. */
function readRowOperation(intent: string, formData: FormData): RowOperation | null | 'unknown' {
  if (intent === 'save') return null;
  if (intent === 'add') {
    const type = formData.get('newType');
    return (FORM_FIELD_TYPES as readonly unknown[]).includes(type) ? { op: 'add', type: type as FormFieldType } : 'unknown';
  }
  const m = /^(remove|up|down):(\d{1,2})$/.exec(intent);
  return m ? { op: m[1] as 'remove' | 'up' | 'down', index: Number(m[2]) } : 'unknown';
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contact_form');
  await requireFeature(request, 'customerManagement/enabled', ctx);
  const id = parseRouteId(params.id);
  if (!id) throw new Response('Not Found', { status: 404 });
  const who = { accountId: ctx.account.id, actorId: ctx.user.id, id };
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  const here = `/forms/edit/${id}`;

  if (intent === 'publish' || intent === 'unpublish') {
    const form = await setFormStatus({ ...who, status: intent === 'publish' ? 'published' : 'draft' });
    if (!form) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(here, { type: 'info', text: intent === 'publish' ? 'Form Published' : 'Form Unpublished' });
  }
  if (intent === 'delete') {
    if (!(await deleteForm(who))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/forms/all', { type: 'info', text: 'Form Deleted' });
  }
  const operation = readRowOperation(intent, formData);
  if (operation === 'unknown') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: FormBuilderSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const fields = applyRowOperation(fieldDefsOf(submission.value), operation);
  if (fields.length > 30) return data(submission.reply({ fieldErrors: { fields: ['A form can have at most 30 fields'] } }), { status: 400 });
  if (operation?.op === 'add' && operation.type === 'file' && fields.filter((f) => f.type === 'file').length > 1)
    return data(submission.reply({ fieldErrors: { fields: ['A form can have one file upload field'] } }), { status: 400 });
  try {
    if (!(await saveForm({ ...who, input: submission.value, fields }))) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof FormInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
  if (operation) return redirect(`${here}#fields`);
  return redirectWithToast(here, { type: 'info', text: 'Form Updated' });
}

export const handle = {
  breadcrumb: (loaderData: { form: { name: string } } | undefined) => loaderData?.form.name ?? null,
};

export default function FormBuilderPage() {
  const loaderData = useLoaderData<typeof loader>();
  // A saved change (a row added, moved or removed) starts the editor again from what was saved.
  return <FormBuilder key={loaderData.form.version} {...loaderData} />;
}

function FormBuilder({ form, publicUrl, embed, inboxes, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [conform, fields] = useForm({
    id: `form-builder-${form.id}`,
    lastResult,
    defaultValue: { ...form, fields: form.fields.map((f) => ({ ...f, options: (f.options ?? []).join('\n') })) },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const rows = fields.fields.getFieldList();
  const published = form.status === 'published';
  return (
    <section className="page stack form-builder">
      <header className="row wrap">
        <h1>{form.name}</h1>
        <span className={published ? 'pill pill-ok' : 'pill pill-off'} data-testid="form-status">
          {published ? 'Published' : 'Draft'}
        </span>
        <div className="spacer" />
        <Link to={`/forms/responses/${form.id}`} className="btn">
          Responses
        </Link>
        <Form method="post">
          <button type="submit" className="btn" name="intent" value={published ? 'unpublish' : 'publish'} disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
            {published ? 'Unpublish' : 'Publish'}
          </button>
        </Form>
        <DeleteConfirm id={`form-${form.id}`} label="Delete" text={`Delete the form ${form.name} and its responses?`} disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
      </header>
      {published ? (
        <div className="card stack" data-testid="form-share">
          <p>
            Public address: <a href={publicUrl}>{publicUrl}</a>
          </p>
          <label htmlFor="form-embed">Embed snippet</label>
          <textarea id="form-embed" readOnly rows={2} value={embed} />
        </div>
      ) : (
        <p className="muted">This form is a draft: publish it to open its public address.</p>
      )}
      <div className="builder-layout">
        <Form method="post" {...getFormProps(conform)} className="card stack" aria-label="Form builder">
          {/* Enter in a text box presses the form's first submit button: Save, never a row's Move or Remove. */}
          <button type="submit" name="intent" value="save" className="visually-hidden" tabIndex={-1} aria-hidden="true" disabled={locked}>
            Save
          </button>
          <fieldset disabled={locked} className="stack" style={{ minWidth: 0 }}>
            <legend className="visually-hidden">Settings</legend>
            <Field label="Name" field={fields.name} maxLength={100} />
            <Field label="Header" field={fields.headerText} maxLength={150} />
            <TextareaField label="Description (optional)" field={fields.description} maxLength={500} />
            <Field label="Submit button text" field={fields.submitText} maxLength={40} />
            <SelectField label="Brand colour" field={fields.brandColour} options={BRAND_COLOUR_NAMES.map((c) => ({ value: c, label: c[0].toUpperCase() + c.slice(1) }))} />
            <TextareaField label="Thank-you message" field={fields.thankYouMessage} maxLength={500} />
            <Field label="Redirect URL after submitting (optional)" field={fields.redirectUrl} type="url" hint="When set, visitors go there instead of seeing the thank-you message." />
            <SelectField label="Open a conversation in" field={fields.inboxId} options={inboxes} placeholder="No conversation (store the response only)" />
            <CheckboxField label="Ask a captcha question to stop spam" field={fields.captcha} />
          </fieldset>
          <fieldset id="fields" disabled={locked} className="stack" style={{ minWidth: 0 }}>
            <legend>Fields</legend>
            <ErrorList id={fields.fields.errorId} errors={fields.fields.errors} />
            <ol className="builder-rows stack" style={{ paddingInlineStart: 0, listStyle: 'none' }}>
              {rows.map((row, i) => {
                const f = row.getFieldset();
                const type = (f.type.initialValue ?? 'short_text') as FormFieldType;
                return (
                  <li key={f.key.initialValue ?? i} className="builder-row card stack" data-testid={`field-row-${i}`}>
                    <input type="hidden" name={f.key.name} value={f.key.initialValue ?? ''} />
                    <input type="hidden" name={f.type.name} value={type} />
                    <div className="row wrap">
                      <strong>{FIELD_TYPE_LABELS[type] ?? type}</strong>
                      <div className="spacer" />
                      <button type="submit" className="btn btn-small" name="intent" value={`up:${i}`} disabled={i === 0} aria-label={`Move ${f.label.initialValue ?? 'field'} up`}>
                        ↑
                      </button>
                      <button type="submit" className="btn btn-small" name="intent" value={`down:${i}`} disabled={i === rows.length - 1} aria-label={`Move ${f.label.initialValue ?? 'field'} down`}>
                        ↓
                      </button>
                      <button type="submit" className="btn btn-small" name="intent" value={`remove:${i}`} aria-label={`Remove ${f.label.initialValue ?? 'field'}`}>
                        Remove
                      </button>
                    </div>
                    <Field label="Label" field={f.label} maxLength={150} />
                    {type === 'choice' ? (
                      <div className="field">
                        <label htmlFor={f.options.id}>Options (one per line)</label>
                        <OptionsInput field={f.options} />
                        <ErrorList id={f.options.errorId} errors={f.options.errors} />
                      </div>
                    ) : null}
                    {type === 'file' ? null : <CheckboxField label="Required" field={f.required} />}
                  </li>
                );
              })}
            </ol>
            <div className="row wrap">
              <label htmlFor="new-field-type">Add a field</label>
              <select id="new-field-type" name="newType" defaultValue="short_text" style={{ maxWidth: '100%' }}>
                {FORM_FIELD_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {FIELD_TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
              <button type="submit" className="btn" name="intent" value="add" data-testid="add-field">
                Add field
              </button>
            </div>
          </fieldset>
          <ErrorList id={conform.errorId} errors={conform.errors} />
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value="save" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
              Save
            </button>
          </div>
        </Form>
        <aside className="card stack form-preview" aria-label="Preview" style={{ borderTop: `4px solid ${BRAND_COLOURS[form.brandColour as keyof typeof BRAND_COLOURS] ?? BRAND_COLOURS.blue}` }}>
          <h2>Preview</h2>
          <h3>{form.headerText}</h3>
          {form.description ? <p className="muted">{form.description}</p> : null}
          <PublicFormFields fields={form.fields} disabled idPrefix="preview" />
          <button type="button" className="btn btn-primary" disabled>
            {form.submitText}
          </button>
        </aside>
      </div>
    </section>
  );
}

function OptionsInput({ field }: { field: Parameters<typeof getTextareaProps>[0] }) {
  const { key, ...props } = getTextareaProps(field, { ariaAttributes: true });
  return <textarea key={key} {...props} rows={3} />;
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d?.form.name ?? 'Form', 'Forms') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
