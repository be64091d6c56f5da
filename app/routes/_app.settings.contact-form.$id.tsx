import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import {
  createContactForm,
  deleteContactForm,
  getContactForm,
  listContactFormInboxes,
  setContactFormActive,
  updateContactForm,
} from '~/models/productivity/contact-forms.server';
import { CONTACT_FORM_DEFAULTS, NEW_INBOX } from '~/models/productivity/constants';
import { ContactFormSchema } from '~/models/productivity/schemas';
import { FieldInputError } from '~/models/productivity/shared.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/contact-form';
const DEFAULT_INBOX_NAME = 'Contact Form';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const form = id === 'new' ? null : await getContactForm({ accountId: ctx.account.id, id });
  if (form === undefined) throw new Response('Not Found', { status: 404 });
  const inboxes = await listContactFormInboxes({ accountId: ctx.account.id });
  const publicUrl = form ? accountUrl(request, ctx.account.domain, `/contact/${form.code}`) : null;
  return {
    form: form
      ? {
          id: form.id,
          headerText: form.headerText,
          subHeaderText: form.subHeaderText,
          submitText: form.submitText,
          submitMsg: form.submitMsg,
          inboxId: String(form.inboxId),
          allowPhone: form.allowFields.phone,
          allowAttachments: form.allowFields.attachments,
          allowCaptcha: form.allowFields.captcha,
          isActive: form.isActive,
          publicUrl,
          embed: `<iframe src="${publicUrl}" title="${form.headerText.replace(/"/g, '&quot;')}" style="width:100%;min-height:720px;border:0" loading="lazy"></iframe>`,
        }
      : null,
    inboxes: inboxes.map((i) => ({ id: i.id, name: i.name, channelType: i.channelType })),
    locked: !can(ctx, 'manage_contact_form'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contact_form');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  if (id !== 'new' && (intent === 'delete' || intent === 'activate' || intent === 'deactivate')) {
    if (intent === 'delete') {
      if (!(await deleteContactForm({ ...who, id }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(LIST, { type: 'info', text: 'Contact Form Deleted' });
    }
    if (!(await setContactFormActive({ ...who, id, isActive: intent === 'activate' }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Contact Form Updated' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: ContactFormSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    if (id === 'new') {
      await createContactForm({ ...who, ...submission.value });
      return redirectWithToast(LIST, 'Contact Form Created');
    }
    if (!(await updateContactForm({ ...who, id, ...submission.value }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Contact Form Updated' });
  } catch (err) {
    if (err instanceof FieldInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { form: { headerText: string } | null } | undefined) => (loaderData ? (loaderData.form?.headerText ?? 'Create Contact Form') : null),
};

export default function ContactFormPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <ContactFormEditor key={loaderData.form?.id ?? 'new'} {...loaderData} />;
}


function ContactFormEditor({ form, inboxes, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const hasDefaultInboxName = inboxes.some((i) => i.name.toLowerCase() === DEFAULT_INBOX_NAME.toLowerCase());
  const [conform, fields] = useForm({
    id: `contact-form-${form?.id ?? 'new'}`,
    lastResult,
    defaultValue: form
      ? { ...form, newInboxName: '' }
      : {
          ...CONTACT_FORM_DEFAULTS,
          inboxId: inboxes[0] ? String(inboxes[0].id) : NEW_INBOX,
          // Only a suggestion for when "Create a new inbox" is the one choice (no inbox yet); never a hidden value.
          newInboxName: inboxes.length === 0 && !hasDefaultInboxName ? DEFAULT_INBOX_NAME : '',
        },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const inboxOptions = [
    ...inboxes.map((i) => ({ value: String(i.id), label: i.name })),
    { value: NEW_INBOX, label: 'Create a new inbox' },
  ];
  return (
    <SettingsPage
      title={form ? 'Edit Contact Form' : 'Create Contact Form'}
      subHeader="Visitors fill it in on your website; each message opens a conversation in the chosen inbox."
      learnMore="/help-center"
      locked={locked}
      actions={
        form ? (
          <div className="row">
            <Form method="post" className="row" data-testid="active-toggle">
              <span className={form.isActive ? 'pill pill-ok' : 'pill pill-off'}>{form.isActive ? 'Active' : 'Inactive'}</span>
              <button
                type="submit"
                className="btn"
                name="intent"
                value={form.isActive ? 'deactivate' : 'activate'}
                disabled={locked}
                title={locked ? ROLE_LOCKED_MESSAGE : undefined}
              >
                {form.isActive ? 'Deactivate' : 'Activate'}
              </button>
            </Form>
            <DeleteConfirm id={`contact-form-${form.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
          </div>
        ) : null
      }
    >
      <Form method="post" {...getFormProps(conform)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Header Text" field={fields.headerText} disabled={locked} autoComplete="off" />
          <Field label="Sub Header Text" field={fields.subHeaderText} disabled={locked} autoComplete="off" />
          <Field label="Submit Text" field={fields.submitText} disabled={locked} autoComplete="off" />
          <Field label="Submit Message" field={fields.submitMsg} disabled={locked} autoComplete="off" />
          <SelectField label="Inbox" field={fields.inboxId} options={inboxOptions} placeholder="Choose an inbox" disabled={locked} />
          {/* Shown while "Create a new inbox" is chosen, by CSS (app.css), so that it works without JavaScript. */}
          <div className={fields.newInboxName.errors?.length ? 'new-inbox has-error' : 'new-inbox'}>
            <Field label="New inbox name" field={fields.newInboxName} disabled={locked} autoComplete="off" hint="A contact-form inbox with this name is created with the form." />
          </div>
          <fieldset>
            <legend>Fields</legend>
            <p className="muted" data-testid="fixed-fields">
              Name, Email, Subject and Message are always on the form.
            </p>
            <CheckboxField label="Phone" field={fields.allowPhone} disabled={locked} />
            <CheckboxField label="Attachments" field={fields.allowAttachments} disabled={locked} />
            <CheckboxField label="Captcha" field={fields.allowCaptcha} disabled={locked} />
          </fieldset>
        </fieldset>
        <ErrorList id={conform.errorId} errors={conform.errors} />
        <FormActions cancelTo={LIST} submitLabel={form ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
      {form ? (
        <section className="stack" data-testid="embed">
          <h2>Publish</h2>
          <p>
            Public page:{' '}
            <a href={form.publicUrl ?? '#'} target="_blank" rel="noreferrer" data-testid="public-url">
              {form.publicUrl}
            </a>
            {form.isActive ? null : <span className="muted"> (inactive: the page answers 404 until you activate the form)</span>}
          </p>
          <div className="field">
            <label htmlFor="embed-code">Embed code</label>
            <textarea id="embed-code" readOnly rows={3} value={form.embed} />
            <small className="muted">Paste this into any page of your website to show the form there.</small>
          </div>
        </section>
      ) : null}
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.form?.headerText ?? 'Create Contact Form', 'Contact Form', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
