import { getFormProps, useForm } from '@conform-to/react';
import { settingsEditorAction } from '~/models/productivity/editor-action.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import {
  createCannedResponse,
  deleteCannedResponse,
  getCannedResponse,
  updateCannedResponse,
} from '~/models/productivity/canned-responses.server';
import { CANNED_MESSAGE_MAX, CANNED_NAME_MAX } from '~/models/productivity/constants';
import { CannedResponseSchema } from '~/models/productivity/schemas';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/settings/canned-responses';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const canned = id === 'new' ? null : await getCannedResponse({ accountId: ctx.account.id, id });
  if (canned === undefined) throw new Response('Not Found', { status: 404 });
  return {
    canned: canned ? { id: canned.id, name: canned.name, message: canned.message } : null,
    locked: !can(ctx, 'manage_canned_responses'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_canned_responses');
  return settingsEditorAction({
    formData: await request.formData(),
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id: readEditorParam(params.id),
    list: LIST,
    schema: CannedResponseSchema,
    create: createCannedResponse,
    update: updateCannedResponse,
    remove: deleteCannedResponse,
    toasts: { created: 'Canned Response Created', updated: 'Canned Response Updated', deleted: 'Canned Response Deleted' },
  });
}

export const handle = {
  breadcrumb: (loaderData: { canned: { name: string } | null } | undefined) => (loaderData ? (loaderData.canned?.name ?? 'Create Canned Response') : null),
};

export default function CannedResponsePage() {
  const loaderData = useLoaderData<typeof loader>();
  return <CannedResponseEditor key={loaderData.canned?.id ?? 'new'} {...loaderData} />;
}

function CannedResponseEditor({ canned, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `canned-${canned?.id ?? 'new'}`,
    lastResult,
    defaultValue: canned ? { name: canned.name, message: canned.message } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={canned ? 'Edit Canned Response' : 'Create Canned Response'}
      subHeader="Give the reply a short name agents can search for, and the text it inserts."
      learnMore="/help-center"
      locked={locked}
      actions={canned ? <DeleteConfirm id={`canned-${canned.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} disabled={locked} autoComplete="off" hint={`At most ${CANNED_NAME_MAX} characters`} />
          <TextareaField label="Message" field={fields.message} disabled={locked} rows={4} />
          <small className="muted">At most {CANNED_MESSAGE_MAX} characters.</small>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={canned ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.canned?.name ?? 'Create Canned Response', 'Canned Responses', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
