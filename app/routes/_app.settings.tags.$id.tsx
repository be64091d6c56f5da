import { getFormProps, useForm } from '@conform-to/react';
import { settingsEditorAction } from '~/models/productivity/editor-action.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { TAG_COLOURS } from '~/models/productivity/constants';
import { TagSchema } from '~/models/productivity/schemas';
import { createTag, deleteTag, getTag, updateTag } from '~/models/productivity/tags.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/settings/tags';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const tag = id === 'new' ? null : await getTag({ accountId: ctx.account.id, id });
  if (tag === undefined) throw new Response('Not Found', { status: 404 });
  return {
    tag: tag ? { id: tag.id, name: tag.name, color: tag.color, conversationCount: tag.conversationCount } : null,
    locked: !can(ctx, 'manage_tags'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_tags');
  return settingsEditorAction({
    formData: await request.formData(),
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id: readEditorParam(params.id),
    list: LIST,
    schema: TagSchema,
    create: createTag,
    update: updateTag,
    remove: deleteTag,
    toasts: { created: 'Tag Created', updated: 'Tag Updated', deleted: 'Tag Deleted' },
  });
}

export const handle = {
  breadcrumb: (loaderData: { tag: { name: string } | null } | undefined) => (loaderData ? (loaderData.tag?.name ?? 'Create Tag') : null),
};

export default function TagPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <TagEditor key={loaderData.tag?.id ?? 'new'} {...loaderData} />;
}

const colourOptions = TAG_COLOURS.map((c) => ({ value: c, label: c[0].toUpperCase() + c.slice(1) }));

function TagEditor({ tag, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `tag-${tag?.id ?? 'new'}`,
    lastResult,
    defaultValue: tag ? { name: tag.name, color: tag.color } : { color: 'blue' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={tag ? 'Edit Tag' : 'Create Tag'}
      subHeader={tag ? `Used on ${tag.conversationCount} conversation${tag.conversationCount === 1 ? '' : 's'}.` : 'A tag has a name and a colour.'}
      learnMore="/help-center"
      locked={locked}
      actions={tag ? <DeleteConfirm id={`tag-${tag.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Tag Name" field={fields.name} disabled={locked} autoComplete="off" />
          <SelectField label="Colour" field={fields.color} options={colourOptions} disabled={locked} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={tag ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.tag?.name ?? 'Create Tag', 'Tags', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
