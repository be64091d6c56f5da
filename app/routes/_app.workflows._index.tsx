import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Link, useActionData, useLoaderData, useNavigate } from '@remix-run/react';
import type { MouseEvent } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ListSearch } from '~/components/ui/list-search';
import { Pager, readPage } from '~/components/ui/pager';
import { WORKFLOW_EVENT_LABELS, type WorkflowEvent } from '~/models/automation/rule-constants';
import { deleteWorkflow, listWorkflows, setWorkflowActive, workflowAllowance, WorkflowInputError } from '~/models/automation/workflows.server';
import { STATUS_CHANGE_TEXT, STATUS_CHANGE_TITLE } from '~/models/automation/workflows-constants';
import { WorkflowStatusSchema } from '~/models/automation/workflows.schemas';
import { FEATURE_DENIED_MESSAGE } from '~/models/plans/catalogue';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { can, canUseFeature, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';
import { parseRowId } from '~/utils/route-id';

const LIST = '/workflows';

/** Everyone sees the list; without the plan's advanceWorkflows it is the empty state with a (denied) call to action. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 100);
  const featureOn = canUseFeature(ctx, 'workflowAutomation/advanceWorkflows');
  const [list, allowance] = await Promise.all([
    featureOn ? listWorkflows({ accountId: ctx.account.id, term: q, page: readPage(url) }) : null,
    workflowAllowance({ accountId: ctx.account.id }),
  ]);
  return {
    q,
    featureOn,
    list,
    create: { allowed: allowance.allowed, message: allowance.message },
    locked: !can(ctx, 'manage_workflow_rules'),
  };
}

/** The row's switch (after "Status Change") and delete. */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_workflow_rules');
  await requireFeature(request, 'workflowAutomation/advanceWorkflows', ctx);
  const form = await request.formData();
  const intent = form.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'status') {
    const submission = parseWithZod(form, { schema: WorkflowStatusSchema });
    if (submission.status !== 'success') throw new Response('Bad Request', { status: 400 });
    try {
      const row = await setWorkflowActive({ ...who, ...submission.value });
      if (!row) throw new Response('Not Found', { status: 404 });
    } catch (err) {
      if (err instanceof WorkflowInputError) return data({ error: err.message }, { status: err.status });
      throw err;
    }
    return redirectWithToast(LIST, { type: 'info', text: 'Workflow Updated' });
  }
  if (intent === 'delete') {
    const id = parseRowId(form.get('id')) ?? 0;
    if (!Number.isInteger(id) || id <= 0 || id > 2_147_483_647) throw new Response('Bad Request', { status: 400 });
    if (!(await deleteWorkflow({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Workflow Deleted' });
  }
  throw new Response('Unknown intent', { status: 400 });
}

export default function WorkflowList() {
  const { q, featureOn, list, create, locked } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigate = useNavigate();
  const empty = !featureOn || !list || list.defaultWorkflowCount === 0;
  const createButton = locked ? (
    <span className="btn" aria-disabled="true" title={ROLE_LOCKED_MESSAGE} data-testid="create-workflow-denied">
      <DeniedBadge kind="role" /> Create Workflow
    </span>
  ) : !create.allowed ? (
    <span className="btn" aria-disabled="true" title={create.message ?? FEATURE_DENIED_MESSAGE} data-testid="create-workflow-denied">
      <DeniedBadge kind="feature" /> Create Workflow
    </span>
  ) : (
    <Link to="/workflows/builder" className="btn btn-primary">
      Create Workflow
    </Link>
  );
  // With JavaScript a click anywhere on a row opens its builder; the name is the link that works without it.
  const openRow = (id: number) => (e: MouseEvent) => {
    if ((e.target as HTMLElement).closest('a, button, [popover], form')) return;
    navigate(`/workflows/builder/${id}`);
  };

  return (
    <section className="stack">
      <header className="row">
        <h1>Workflows</h1>
        {list ? <span className="muted">{list.defaultWorkflowCount}</span> : null}
        <div className="spacer" />
        {empty ? null : createButton}
      </header>
      <p className="muted" data-testid="workflows-purpose">
        Workflows act across your whole account when something happens — a new conversation or contact, a survey, a review, an SLA breach; to
        automate particular inboxes (on every new message too), use <Link to="/settings/automation-rules">Automation Rules</Link>.{' '}
        <Link to="/help-center/workflows">Learn more</Link>
      </p>
      {actionData && 'error' in actionData ? (
        <p className="field-error" role="alert" data-testid="workflow-error">
          {actionData.error}
        </p>
      ) : null}
      {empty ? (
        <div className="card empty-state" data-testid="empty">
          <h2>Automate your support with workflows</h2>
          <p className="muted">A workflow waits for an event — a new conversation, contact, survey or review — and acts on it: assigns, tags, notes and more.</p>
          {!featureOn ? (
            <p className="muted" data-testid="feature-denied">
              {FEATURE_DENIED_MESSAGE}
            </p>
          ) : null}
          {createButton}
        </div>
      ) : (
        <>
          <ListSearch q={q} label="Search workflows" action={LIST} />
          {list.total === 0 ? (
            <p className="muted" data-testid="no-match">
              No workflows match your search.
            </p>
          ) : (
            <table className="table" data-testid="workflows">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Name</th>
                  <th>Event</th>
                  <th>Created By</th>
                  <th>Status</th>
                  <th>Action</th>
                </tr>
              </thead>
              <tbody>
                {list.rows.map((w, i) => (
                  <tr key={w.id} onClick={openRow(w.id)} className="clickable" data-testid={`workflow-${w.id}`}>
                    <td>{(list.page - 1) * list.pageSize + i + 1}</td>
                    <td>
                      <Link to={`/workflows/builder/${w.id}`}>{w.name}</Link>
                      {w.description ? <div className="muted">{w.description}</div> : null}
                    </td>
                    <td>{WORKFLOW_EVENT_LABELS[w.event as WorkflowEvent] ?? w.event}</td>
                    <td>{w.createdBy ?? '—'}</td>
                    <td>
                      <DeleteConfirm
                        id={`status-${w.id}`}
                        action={`${LIST}?index`}
                        intent="status"
                        fields={{ id: String(w.id), isActive: String(!w.isActive) }}
                        label={w.isActive ? 'Active' : 'Inactive'}
                        title={STATUS_CHANGE_TITLE}
                        text={STATUS_CHANGE_TEXT}
                        confirmLabel="Update"
                        tone="neutral"
                        disabled={locked}
                        disabledReason={ROLE_LOCKED_MESSAGE}
                      />
                    </td>
                    <td>
                      <DeleteConfirm
                        id={`workflow-${w.id}`}
                        action={`${LIST}?index`}
                        fields={{ id: String(w.id) }}
                        disabled={locked}
                        disabledReason={ROLE_LOCKED_MESSAGE}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
        </>
      )}
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Workflows') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
