import { getFormProps, useForm } from '@conform-to/react';
import { settingsEditorAction } from '~/models/productivity/editor-action.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { useBlockDesigner } from '~/components/campaigns/block-designer-switch';
import { useHtmlDesigner } from '~/components/campaigns/html-designer';
import { TEMPLATE_NAME_MAX, TEMPLATE_SUBJECT_MAX, TEMPLATE_TOASTS } from '~/models/campaigns/constants';
import { CampaignTemplateSchema } from '~/models/campaigns/schemas';
import { createCampaignTemplate, deleteCampaignTemplate, getCampaignTemplate, updateCampaignTemplate } from '~/models/campaigns/templates.server';
import { TEMPLATE_PLACEHOLDERS } from '~/models/productivity/templates';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/settings/campaigns-templates';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/emailCampaigns', await requireUser(request));
  const id = readEditorParam(params.id);
  const template = id === 'new' ? null : await getCampaignTemplate({ accountId: ctx.account.id, id });
  if (template === undefined) throw new Response('Not Found', { status: 404 });
  return {
    template: template ? { id: template.id, name: template.name, subject: template.subject, bodyHtml: template.bodyHtml, bodyText: template.bodyText, textDesign: template.textDesign } : null,
    locked: !can(ctx, 'manage_campaigns'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/emailCampaigns', await requirePermission(request, 'manage_campaigns'));
  return settingsEditorAction({
    formData: await request.formData(),
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id: readEditorParam(params.id),
    list: LIST,
    schema: CampaignTemplateSchema,
    create: createCampaignTemplate,
    update: updateCampaignTemplate,
    remove: deleteCampaignTemplate,
    toasts: TEMPLATE_TOASTS,
  });
}

export const handle = {
  breadcrumb: (loaderData: { template: { name: string } | null } | undefined) => (loaderData ? (loaderData.template?.name ?? 'Create Campaign Template') : null),
};

export default function CampaignTemplatePage() {
  const loaderData = useLoaderData<typeof loader>();
  return <TemplateEditor key={loaderData.template?.id ?? 'new'} {...loaderData} />;
}

function TemplateEditor({ template, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `campaign-template-${template?.id ?? 'new'}`,
    lastResult,
    defaultValue: template ? { name: template.name, subject: template.subject, bodyHtml: template.bodyHtml } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const blocks = useBlockDesigner(fields.bodyHtml.id, template?.textDesign, !locked);
  const designer = useHtmlDesigner(fields.bodyHtml.id, !locked && !blocks.on);
  return (
    <SettingsPage
      title={template ? 'Edit Campaign Template' : 'Create Campaign Template'}
      subHeader="The name agents pick it by, the email's subject, and its body."
      learnMore="/help-center"
      locked={locked}
      actions={template ? <DeleteConfirm id={`campaign-template-${template.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} disabled={locked} autoComplete="off" hint={`At most ${TEMPLATE_NAME_MAX} characters`} />
          <Field label="Subject" field={fields.subject} disabled={locked} autoComplete="off" hint={`At most ${TEMPLATE_SUBJECT_MAX} characters`} />
          {blocks.control}
          <TextareaField label={designer ? 'Body' : 'Body (HTML)'} field={fields.bodyHtml} disabled={locked} rows={12} />
          {blocks.field}
          <small className="muted">
            Placeholders: {TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}. The plain-text version is made from the body when you save.
          </small>
          {template?.bodyText ? (
            <details>
              <summary>Plain-text version</summary>
              <pre className="muted" style={{ whiteSpace: 'pre-wrap' }}>
                {template.bodyText}
              </pre>
            </details>
          ) : null}
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={template ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.template?.name ?? 'Create Campaign Template', 'Campaign Templates', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
