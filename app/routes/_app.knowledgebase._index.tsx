import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { BookOpen } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { createKnowledgeBase, deleteKnowledgeBase, listKnowledgeBases } from '~/models/knowledge-base/knowledge-bases.server';
import { readLastKnowledgeBase } from '~/models/knowledge-base/last-opened.server';
import { KB_DETAIL_MAX, KB_NAME_MAX, KnowledgeBaseSchema } from '~/models/knowledge-base/schemas';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { can, requireFeature } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'knowledgeBase/enabled');
  const list = await listKnowledgeBases({ accountId: ctx.account.id });
  const url = new URL(request.url);
  // The one chosen last (section 2), if it still exists: offered first.
  const remembered = await readLastKnowledgeBase(request, ctx.user.id);
  const last = remembered ? (list.find((kb) => kb.id === remembered.id) ?? null) : null;
  return { list, locked: !can(ctx, 'customize_docs'), adding: url.searchParams.has('new'), last: last ? { id: last.id, name: last.name } : null };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'knowledgeBase/enabled');
  // Section 6: customize_docs creates (and deletes) knowledge bases.
  if (!can(ctx, 'customize_docs')) throw new Response(ROLE_LOCKED_MESSAGE, { status: 403 });
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete') {
    const id = parseRowId(formData.get('id'));
    if (!id || !(await deleteKnowledgeBase({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/knowledgebase', { type: 'info', text: 'Knowledgebase Deleted' });
  }
  if (intent !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: KnowledgeBaseSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const kb = await createKnowledgeBase({ ...who, ...submission.value });
  // Section 2: after creation, straight into it when it is the only one, otherwise back to the list.
  const all = await listKnowledgeBases({ accountId: ctx.account.id });
  return redirectWithToast(all.length === 1 ? `/knowledgebase/${kb.id}/articles` : '/knowledgebase', 'Knowledgebase Created');
}

export default function KnowledgeBases() {
  const { list, locked, adding, last } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  // Section 2: the Add button shows only when exactly one exists; with none the form is the empty state.
  const showForm = list.length !== 1 || adding || Boolean(lastResult);
  return (
    <section className="page kb-list">
      <header className="row">
        <h1>Knowledge Base</h1>
        <div className="spacer" />
        {list.length === 1 && !showForm ? (
          <Link to="?new" className="btn btn-primary" title={locked ? ROLE_LOCKED_MESSAGE : undefined} aria-disabled={locked || undefined}>
            {locked ? <DeniedBadge kind="role" /> : null} Add Knowledge Base
          </Link>
        ) : null}
      </header>
      {list.length === 0 ? <p className="muted">No knowledge base yet. Create one to start writing articles.</p> : null}
      {last && list.length > 1 ? (
        <p className="row" data-testid="kb-last">
          <span className="muted">Last opened:</span> <Link to={`/knowledgebase/${last.id}/articles`}>{last.name}</Link>
        </p>
      ) : null}
      <ul className="card-list" data-testid="knowledge-bases">
        {list.map((kb) => (
          <li key={kb.id} className="card row">
            <BookOpen aria-hidden="true" size={20} />
            <div>
              <h2>
                <Link to={`/knowledgebase/${kb.id}/articles`}>{kb.name}</Link>
              </h2>
              {kb.detail ? <p className="muted">{kb.detail}</p> : null}
              <p className="muted">
                {kb.articleCount} articles · {kb.categoryCount} categories
              </p>
            </div>
            <div className="spacer" />
            {locked ? null : (
              <DeleteConfirm id={`kb-${kb.id}`} fields={{ id: String(kb.id) }} text={`Are you sure you want to delete ${kb.name} and all its articles?`} />
            )}
          </li>
        ))}
      </ul>
      {showForm ? <CreateForm locked={locked} /> : null}
    </section>
  );
}

function CreateForm({ locked }: { locked: boolean }) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: 'kb-create', lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <Form method="post" {...getFormProps(form)} className="card stack" aria-labelledby="kb-create-title">
      <h2 id="kb-create-title">Create Knowledge Base {locked ? <DeniedBadge kind="role" /> : null}</h2>
      <fieldset disabled={locked} className="stack">
        <Field label="Name" field={fields.name} autoComplete="off" hint={`At most ${KB_NAME_MAX} characters`} />
        <TextareaField label="Description" field={fields.detail} rows={2} />
        <small className="muted">At most {KB_DETAIL_MAX} characters.</small>
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <div className="actions">
        <button type="submit" className="btn btn-primary" name="intent" value="create" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
          Create
        </button>
      </div>
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
