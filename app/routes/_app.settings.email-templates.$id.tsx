import { getFormProps, useForm } from '@conform-to/react';
import { settingsEditorAction } from '~/models/productivity/editor-action.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
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
import { TEMPLATE_PLACEHOLDERS } from '~/models/productivity/templates';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/settings/email-templates';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const template = id === 'new' ? null : await getEmailTemplate({ accountId: ctx.account.id, id });
  if (template === undefined) throw new Response('Not Found', { status: 404 });
  return {
    template: template ? { id: template.id, name: template.name, subject: template.subject, body: template.body } : null,
    locked: !can(ctx, 'manage_email_templates'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_email_templates');
  return settingsEditorAction({
    formData: await request.formData(),
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id: readEditorParam(params.id),
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

function EmailTemplateEditor({ template, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
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
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.template?.name ?? 'Create Email Template', 'Email Templates', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
