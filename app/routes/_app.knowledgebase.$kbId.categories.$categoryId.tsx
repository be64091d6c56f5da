import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { createCategory, deleteCategory, getCategory, updateCategory } from '~/models/knowledge-base/categories.server';
import { CATEGORY_DESCRIPTION_MAX, CATEGORY_NAME_MAX, CategorySchema } from '~/models/knowledge-base/schemas';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  const id = readEditorParam(params.categoryId);
  const category = id === 'new' ? null : await getCategory({ ...scope, id });
  if (category === undefined) throw new Response('Not Found', { status: 404 });
  return {
    kbId: kb.id,
    category: category ? { id: category.id, name: category.name, description: category.description } : null,
    locked: !can(ctx, 'manage_categories'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'manage_categories')) await roleDenied(request);
  const id = readEditorParam(params.categoryId);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const list = `/knowledgebase/${kb.id}/categories`;
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteCategory({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(list, { type: 'info', text: 'Category Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: CategorySchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  if (id === 'new') {
    await createCategory({ ...who, ...submission.value });
    return redirectWithToast(list, 'Category Created');
  }
  if (!(await updateCategory({ ...who, id, ...submission.value }))) throw new Response('Not Found', { status: 404 });
  return redirectWithToast(list, { type: 'info', text: 'Category Updated' });
}

export const handle = {
  breadcrumb: (loaderData: { category: { name: string } | null } | undefined) => (loaderData ? loaderData.category?.name ?? 'New Category' : null),
};

export default function CategoryPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <CategoryEditor key={loaderData.category?.id ?? 'new'} {...loaderData} />;
}

function CategoryEditor({ kbId, category, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `category-${category?.id ?? 'new'}`,
    lastResult,
    defaultValue: category ? { name: category.name, description: category.description } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={category ? 'Edit Category' : 'New Category'}
      subHeader="Categories group articles on the help centre's home page."
      locked={locked}
      actions={
        category ? (
          <DeleteConfirm
            id={`category-${category.id}`}
            disabled={locked}
            disabledReason={ROLE_LOCKED_MESSAGE}
            text="Are you sure you want to delete ? Its articles stay, without a category."
          />
        ) : null
      }
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" hint={`At most ${CATEGORY_NAME_MAX} characters`} />
          <TextareaField label="Description" field={fields.description} rows={3} />
          <small className="muted">At most {CATEGORY_DESCRIPTION_MAX} characters.</small>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kbId}/categories`} submitLabel={category ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.category?.name ?? 'New Category', 'Knowledge Base') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
