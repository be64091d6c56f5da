import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { deleteRedirect, listRedirects, saveRedirect } from '~/models/knowledge-base/redirects.server';
import { RedirectRuleSchema } from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  const rules = await listRedirects(scope);
  const editId = parseRouteId(new URL(request.url).searchParams.get('edit') ?? undefined);
  const editing = editId ? rules.find((r) => r.id === editId) ?? null : null;
  return {
    kbId: kb.id,
    kbSlug: kb.slug,
    rules: rules.map((r) => ({ id: r.id, source: r.source, destination: r.destination })),
    editing: editing ? { id: editing.id, source: editing.source, destination: editing.destination } : null,
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const formData = await request.formData();
  const list = `/knowledgebase/${kb.id}/redirect-rules`;
  const id = parseRouteId(String(formData.get('id') ?? '') || undefined) ?? undefined;
  if (formData.get('intent') === 'delete') {
    if (!id || !(await deleteRedirect({ ...scope, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(list, { type: 'info', text: 'Redirect Rule Deleted' });
  }
  const submission = parseWithZod(formData, { schema: RedirectRuleSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const saved = await saveRedirect({ ...scope, id, ...submission.value });
  if (!saved.ok) {
    if ('notFound' in saved) throw new Response('Not Found', { status: 404 });
    return data(submission.reply({ fieldErrors: { [saved.field]: [saved.message] } }), { status: 400 });
  }
  return redirectWithToast(list, id ? { type: 'info', text: 'Redirect Rule Updated' } : 'Redirect Rule Created');
}

export const handle = { breadcrumb: () => 'Redirect Rules' };

export default function RedirectRules() {
  const loaderData = useLoaderData<typeof loader>();
  return <RedirectRulesPage key={loaderData.editing?.id ?? 'new'} {...loaderData} />;
}

function RedirectRulesPage({ kbId, kbSlug, rules, editing, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `kb-redirect-${editing?.id ?? 'new'}`,
    lastResult,
    defaultValue: editing ?? undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage title="Redirect Rules" subHeader={`A help-centre path that moved answers a permanent redirect (301) to its new path, under /hc/${kbSlug}.`} locked={locked}>
      {rules.length === 0 ? <p>No redirect rules yet.</p> : null}
      {rules.length ? (
        <table className="table" data-testid="redirect-rules">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Destination</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr key={r.id}>
                <td>{r.source}</td>
                <td>{r.destination}</td>
                <td>
                  <Link to={`?edit=${r.id}`} aria-label={`Edit ${r.source}`}>
                    Edit
                  </Link>{' '}
                  <Form method="post" style={{ display: 'inline' }}>
                    <input type="hidden" name="id" value={r.id} />
                    <button type="submit" name="intent" value="delete" className="btn btn-link" disabled={locked} aria-label={`Delete ${r.source}`}>
                      Delete
                    </button>
                  </Form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>{editing ? 'Edit rule' : 'New rule'}</h2>
      <Form method="post" {...getFormProps(form)} action={editing ? `?edit=${editing.id}` : undefined}>
        {editing ? <input type="hidden" name="id" value={editing.id} /> : null}
        <fieldset disabled={locked} className="stack">
          <Field label="Source" field={fields.source} autoComplete="off" hint="The old path, e.g. /articles/12-old-title" />
          <Field label="Destination" field={fields.destination} autoComplete="off" hint="The new path, e.g. /articles/34-new-title" />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="actions">
          {editing ? <Link to={`/knowledgebase/${kbId}/redirect-rules`}>Cancel</Link> : null}
          <button type="submit" name="intent" value="save" className="btn btn-primary" disabled={locked}>
            {editing ? 'Update' : 'Create'}
          </button>
        </div>
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Redirect Rules', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
