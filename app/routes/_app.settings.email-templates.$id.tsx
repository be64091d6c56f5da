import { getFormProps, useForm } from '@conform-to/react';
import { settingsEditorAction } from '~/models/productivity/editor-action.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { formatSize } from '~/components/inbox/thread';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import {
  createEmailTemplate,
  deleteEmailTemplate,
  getEmailTemplate,
  updateEmailTemplate,
} from '~/models/productivity/email-templates.server';
import { EmailTemplateSchema } from '~/models/productivity/schemas';
import { addTemplateAttachments, listTemplateAttachments, removeTemplateAttachment } from '~/models/productivity/template-attachments.server';
import { MAX_ATTACHMENT_BYTES, MAX_MESSAGE_ATTACHMENT_BYTES } from '~/models/inbox/attachments.server';
import { MAX_REPLY_FILES, ReplyFileError } from '~/models/inbox/replies.server';
import { filesOf, readFormWithFiles } from '~/models/inbox/reply-form.server';
import { redirectWithToast } from '~/utils/toast.server';
import { TEMPLATE_PLACEHOLDERS } from '~/models/productivity/templates';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { parseRouteId, readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/settings/email-templates';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const template = id === 'new' ? null : await getEmailTemplate({ accountId: ctx.account.id, id });
  if (template === undefined) throw new Response('Not Found', { status: 404 });
  return {
    template: template ? { id: template.id, name: template.name, subject: template.subject, body: template.body } : null,
    attachments: template ? await listTemplateAttachments({ accountId: ctx.account.id, templateId: template.id }) : [],
    uploadHint: `Up to ${MAX_REPLY_FILES} files, ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB each and ${MAX_MESSAGE_ATTACHMENT_BYTES / (1024 * 1024)} MB together.`,
    locked: !can(ctx, 'manage_email_templates'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_email_templates');
  const id = readEditorParam(params.id);
  const formData = await readFormWithFiles(request);
  if (typeof formData === 'string') return data({ attachError: formData }, { status: 400 });
  const intent = formData.get('intent');
  // The template's attachments (templates/{id}/attachment): added and removed on this screen, each its own form.
  if (intent === 'attach' || intent === 'remove-attachment') {
    if (id === 'new') throw new Response('Not Found', { status: 404 });
    const who = { accountId: ctx.account.id, actorId: ctx.user.id, templateId: id };
    const here = `${LIST}/${id}`;
    if (intent === 'remove-attachment') {
      const attachmentId = parseRouteId(String(formData.get('attachmentId') ?? ''));
      if (!attachmentId || !(await removeTemplateAttachment({ ...who, attachmentId }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(here, { type: 'info', text: 'Attachment Removed' });
    }
    try {
      const added = await addTemplateAttachments({ ...who, files: await filesOf(formData) });
      if (!added) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(here, added.length === 1 ? 'Attachment Added' : `${added.length} Attachments Added`);
    } catch (err) {
      if (err instanceof ReplyFileError) return data({ attachError: err.message }, { status: 400 });
      throw err;
    }
  }
  return settingsEditorAction({
    formData,
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id,
    list: LIST,
    schema: EmailTemplateSchema,
    create: createEmailTemplate,
    update: updateEmailTemplate,
    remove: deleteEmailTemplate,
    toasts: { created: 'Email Template Created', updated: 'Email Template Updated', deleted: 'Email Template Deleted' },
  });
}

export const handle = {
  breadcrumb: (loaderData: { template: { name: string } | null } | undefined) => (loaderData ? (loaderData.template?.name ?? 'Create Email Template') : null),
};

export default function EmailTemplatePage() {
  const loaderData = useLoaderData<typeof loader>();
  return <EmailTemplateEditor key={loaderData.template?.id ?? 'new'} {...loaderData} />;
}

function EmailTemplateEditor({ template, attachments, uploadHint, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const actionData = useActionData<typeof action>();
  const attachError = actionData && 'attachError' in actionData ? actionData.attachError : null;
  const lastResult = actionData && !('attachError' in actionData) ? actionData : undefined;
  const [form, fields] = useForm({
    id: `email-template-${template?.id ?? 'new'}`,
    lastResult,
    defaultValue: template ? { name: template.name, subject: template.subject, body: template.body } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={template ? 'Edit Email Template' : 'Create Email Template'}
      subHeader="Agents insert a template into an email reply; placeholders are filled from the conversation's contact."
      learnMore="/help-center"
      locked={locked}
      actions={template ? <DeleteConfirm id={`email-template-${template.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} disabled={locked} autoComplete="off" />
          <Field label="Subject" field={fields.subject} disabled={locked} autoComplete="off" />
          <TextareaField label="Body" field={fields.body} disabled={locked} rows={10} />
          <p className="muted" data-testid="placeholders">
            Placeholders: {TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}
          </p>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={template ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
      <section className="stack" aria-labelledby="template-attachments" data-testid="template-attachments">
        <h2 id="template-attachments">Attachments</h2>
        {template ? (
          <>
            <p className="muted">Sent with every reply this template is inserted into (the agent can leave any of them out).</p>
            {attachments.length ? (
              <ul className="stack">
                {attachments.map((f) => (
                  <li key={f.id} className="row wrap">
                    <a href={`/attachments/${f.id}`}>{f.filename}</a> <span className="muted">({formatSize(f.size)})</span>
                    <Form method="post">
                      <input type="hidden" name="attachmentId" value={f.id} />
                      <button type="submit" className="btn" name="intent" value="remove-attachment" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
                        Remove<span className="visually-hidden"> {f.filename}</span>
                      </button>
                    </Form>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No attachments.</p>
            )}
            <Form method="post" encType="multipart/form-data" className="stack">
              <div className="field">
                <label htmlFor="template-files">Add files</label>
                <input id="template-files" type="file" name="files" multiple disabled={locked} aria-invalid={attachError ? true : undefined} aria-describedby="template-files-hint" />
                <small id="template-files-hint" className="muted">
                  {uploadHint}
                </small>
                <ErrorList errors={attachError ? [attachError] : undefined} />
              </div>
              <div className="row">
                <button type="submit" className="btn" name="intent" value="attach" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
                  Attach
                </button>
              </div>
            </Form>
          </>
        ) : (
          <p className="muted">Create the template first, then attach files to it.</p>
        )}
      </section>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.template?.name ?? 'Create Email Template', 'Email Templates', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
