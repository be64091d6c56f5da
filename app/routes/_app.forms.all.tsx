import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { ListSearch } from '~/components/ui/list-search';
import { ListTable } from '~/components/ui/list-table';
import { readPage } from '~/components/ui/pager';
import { createForm, deleteForm, listForms } from '~/models/forms/forms.server';
import { CreateFormSchema } from '~/models/forms/schemas';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/forms/all';

/** Everyone with the plan area sees the forms; manage_contact_form creates, edits and deletes them (ADR 067). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/enabled', await requireUser(request));
  const url = new URL(request.url);
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 100);
  const list = await listForms({ accountId: ctx.account.id, q, page: readPage(url) });
  return { q, list, creating: url.searchParams.get('new') === '1', locked: !can(ctx, 'manage_contact_form'), user: publicUser(ctx) };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contact_form');
  await requireFeature(request, 'customerManagement/enabled', ctx);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete') {
    const id = parseRowId(formData.get('id'));
    if (!id || !(await deleteForm({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Form Deleted' });
  }
  if (intent !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: CreateFormSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const form = await createForm({ ...who, name: submission.value.name });
  return redirect(`/forms/edit/${form.id}`);
}

export default function FormsList() {
  const { q, list, creating, locked, user } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>Forms</h1>
        <span className="muted" data-testid="form-count">
          {list.total}
        </span>
        <div className="spacer" />
        {locked ? (
          <span className="btn" aria-disabled="true" title={ROLE_LOCKED_MESSAGE}>
            <DeniedBadge kind="role" /> Create Form
          </span>
        ) : (
          <Link to="?new=1" className="btn btn-primary" data-testid="new-form">
            Create Form
          </Link>
        )}
      </header>
      <p className="muted">Public forms for your website: each response creates or updates a contact, and can open a conversation.</p>
      {creating || lastResult ? <CreateForm lastResult={lastResult} /> : null}
      <ListSearch q={q} label="Search forms" action={LIST} />
      <ListTable
        list={list}
        testId="forms-table"
        rowTestId={(r) => `form-${r.name}`}
        empty={q ? 'No form matches your search.' : 'No forms yet. Create one to collect leads, sign-ups or requests on your website.'}
        columns={[
          { header: 'Name', cell: (r) => <Link to={`/forms/edit/${r.id}`}>{r.name}</Link> },
          { header: 'Status', cell: (r) => <span className={r.status === 'published' ? 'pill pill-ok' : 'pill pill-off'}>{r.status === 'published' ? 'Published' : 'Draft'}</span> },
          { header: 'Responses', cell: (r) => <Link to={`/forms/responses/${r.id}`}>{r.responses}</Link> },
          { header: 'Last response', cell: (r) => (r.lastResponseAt ? formatDateTime(r.lastResponseAt, user) : '—') },
          { header: 'Created', cell: (r) => formatDateTime(r.createdAt, user) },
          {
            header: 'Actions',
            hiddenHeader: true,
            cell: (r) =>
              locked ? null : (
                <DeleteConfirm id={`form-${r.id}`} action={LIST} fields={{ id: String(r.id) }} label={<span aria-label={`Delete ${r.name}`}>Delete</span>} text={`Delete the form ${r.name} and its responses?`} />
              ),
          },
        ]}
      />
    </section>
  );
}

function CreateForm({ lastResult }: { lastResult: ReturnType<typeof useActionData<typeof action>> }) {
  const [form, fields] = useForm({ id: 'create-form', lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <Form method="post" action={LIST} {...getFormProps(form)} className="card stack" aria-label="Create Form">
      <Field label="Name" field={fields.name} maxLength={100} autoFocus />
      <ErrorList id={form.errorId} errors={form.errors} />
      <div className="row">
        <button type="submit" name="intent" value="create" className="btn btn-primary">
          Create
        </button>
        <Link to={LIST} className="btn">
          Cancel
        </Link>
      </div>
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Forms') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
