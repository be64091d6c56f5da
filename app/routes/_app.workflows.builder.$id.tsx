import { getFormProps, getSelectProps, useForm, type FieldMetadata, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import {
  ActionFields,
  AddMenu,
  addMenuFocusProps,
  Hidden,
  RemoveRowButton,
  RowControl,
  rowFocusAfter,
  rowFocusProps,
  useRowFocus,
  type RowFocus,
} from '~/components/automation/rule-rows';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { Pager, readPage } from '~/components/ui/pager';
import { describeLine, listRuleRuns, RUN_STATE_LABELS } from '~/models/automation/run-history.server';
import { ACTION_LABELS, ACTIONS_BY_EVENT, CONDITION_OP_LABELS, FILTER_FIELDS, FILTER_LABELS, FLAG_FIELDS, TEXT_OP_LABELS, TEXT_OPS, TRIGGER_CONDITION_LABELS, TRIGGER_CONDITIONS, WORKFLOW_EVENT_LABELS, WORKFLOW_EVENTS, type ActionType, type ConditionField, type FilterField, type WorkflowEvent } from '~/models/automation/rule-constants';
import { deleteWorkflow, getWorkflow, setWorkflowActive, updateWorkflow, workflowFormDefaults, WorkflowInputError } from '~/models/automation/workflows.server';
import { actionNotOfferedMessage, isActionOffered, STATUS_CHANGE_TEXT, STATUS_CHANGE_TITLE, WORKFLOW_ROWS_MAX } from '~/models/automation/workflows-constants';
import { WorkflowBuilderSchema, WorkflowStatusSchema } from '~/models/automation/workflows.schemas';
import { listCompanyOptions } from '~/models/crm/companies.server';
import { listAssigneeOptions, listInboxOptions, listTagOptions } from '~/models/inbox/screens.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { publicUser, requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** The builder needs the plan feature advanceWorkflows and the permission manage_workflow_rules (section 2). */
async function guard(request: Request, param: string | undefined) {
  const ctx = await requirePermission(request, 'manage_workflow_rules');
  await requireFeature(request, 'workflowAutomation/advanceWorkflows', ctx);
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  const workflow = await getWorkflow({ accountId: ctx.account.id, id });
  if (!workflow) throw new Response('Not Found', { status: 404 });
  return { ctx, workflow };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, workflow } = await guard(request, params.id);
  const url = new URL(request.url);
  const tab = url.searchParams.get('tab') === 'runs' ? 'runs' : 'builder';
  const accountId = ctx.account.id;
  const [users, tags, inboxes, companies, runs] = await Promise.all([
    listAssigneeOptions({ accountId }),
    listTagOptions({ accountId }),
    listInboxOptions({ accountId }),
    listCompanyOptions({ accountId }),
    tab === 'runs' ? listRuleRuns({ accountId, ruleId: workflow.id, page: readPage(url) }) : null,
  ]);
  return {
    workflow: {
      id: workflow.id,
      name: workflow.name,
      isActive: workflow.isActive,
      hasActions: workflow.actions.length > 0,
    },
    defaults: workflowFormDefaults(workflow),
    options: {
      users: users.map((u) => ({ value: String(u.id), label: u.name })),
      tags: tags.map((t) => ({ value: String(t.id), label: t.name })),
      inboxes: inboxes.map((i) => ({ value: String(i.id), label: i.name })),
      companies: companies.map((c) => ({ value: String(c.id), label: c.name })),
    },
    tab,
    // Labels and sentences are made here: the run log's reader stays on the server.
    runs: runs
      ? {
          ...runs,
          runs: runs.runs.map((run) => ({
            ...run,
            stateLabel: RUN_STATE_LABELS[run.state],
            lines: run.lines.map((line) => ({
              id: line.id,
              step: line.step,
              actionType: line.actionType,
              text: describeLine(line),
            })),
          })),
        }
      : null,
    user: publicUser(ctx),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, workflow } = await guard(request, params.id);
  const formData = await request.formData();
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  const here = `/workflows/builder/${workflow.id}`;

  // "Add a condition / filter / action" and "Remove" without JavaScript: the builder comes back with the draft changed, nothing saved.
  if (formData.has('__intent__')) {
    let submission;
    try {
      submission = parseWithZod(formData, { schema: WorkflowBuilderSchema });
    } catch {
      throw new Response('Unknown intent', { status: 400 });
    }
    return data({ reply: submission.reply(), statusError: null, focus: rowFocusAfter(formData, submission.payload) }, { status: 200 });
  }

  const intent = formData.get('intent');
  if (intent === 'status') {
    const submission = parseWithZod(formData, { schema: WorkflowStatusSchema });
    if (submission.status !== 'success' || submission.value.id !== workflow.id) throw new Response('Bad Request', { status: 400 });
    try {
      await setWorkflowActive({
        ...who,
        id: workflow.id,
        isActive: submission.value.isActive,
      });
    } catch (err) {
      if (err instanceof WorkflowInputError) return data({ reply: null, statusError: err.message }, { status: err.status });
      throw err;
    }
    return redirectWithToast(here, { type: 'info', text: 'Workflow Updated' });
  }
  if (intent === 'delete') {
    await deleteWorkflow({ ...who, id: workflow.id });
    return redirectWithToast('/workflows', {
      type: 'info',
      text: 'Workflow Deleted',
    });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: WorkflowBuilderSchema });
  if (submission.status !== 'success') return data({ reply: submission.reply(), statusError: null }, { status: 400 });
  try {
    await updateWorkflow({ ...who, id: workflow.id, input: submission.value });
  } catch (err) {
    if (err instanceof WorkflowInputError) {
      const reply = err.field ? submission.reply({ fieldErrors: { [err.field]: [err.message] } }) : submission.reply({ formErrors: [err.message] });
      return data({ reply, statusError: null }, { status: err.status });
    }
    throw err;
  }
  return redirectWithToast(here, { type: 'info', text: 'Workflow Updated' });
}

export const handle = {
  breadcrumb: (loaderData: { workflow: { name: string } } | undefined) => (loaderData ? loaderData.workflow.name : null),
};

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;

export default function WorkflowBuilderPage() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { workflow, tab } = loaderData;
  const base = `/workflows/builder/${workflow.id}`;
  return (
    <section className="stack">
      <header className="row">
        <h1>{workflow.name}</h1>
        <span className={`badge ${workflow.isActive ? 'badge-success' : ''}`} data-testid="workflow-status">
          {workflow.isActive ? 'Active' : 'Inactive'}
        </span>
        <div className="spacer" />
        <DeleteConfirm
          id={`status-${workflow.id}`}
          intent="status"
          fields={{
            id: String(workflow.id),
            isActive: String(!workflow.isActive),
          }}
          label={workflow.isActive ? 'Deactivate' : 'Activate'}
          title={STATUS_CHANGE_TITLE}
          text={STATUS_CHANGE_TEXT}
          confirmLabel="Update"
        />
        <DeleteConfirm id={`workflow-${workflow.id}`} />
      </header>
      {actionData?.statusError ? (
        <p className="field-error" role="alert" data-testid="workflow-error">
          {actionData.statusError}
        </p>
      ) : null}
      <nav className="tabs row" aria-label="Workflow">
        <Link to={base} aria-current={tab === 'builder' ? 'page' : undefined}>
          Builder
        </Link>
        <Link to={`${base}?tab=runs`} aria-current={tab === 'runs' ? 'page' : undefined}>
          Run history
        </Link>
      </nav>
      {tab === 'runs' && loaderData.runs ? (
        <RunHistory runs={loaderData.runs} user={loaderData.user} />
      ) : (
        <Builder
          key={workflow.id}
          {...loaderData}
          reply={(actionData?.reply as SubmissionResult<string[]> | null | undefined) ?? undefined}
          focus={(actionData as { focus?: RowFocus } | undefined)?.focus}
        />
      )}
    </section>
  );
}

function Builder({ workflow, defaults, options, reply, focus }: LoaderData & { reply: SubmissionResult<string[]> | undefined; focus: RowFocus | undefined }) {
  const [form, fields] = useForm({
    id: `workflow-${workflow.id}`,
    lastResult: reply,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const event = ((fields.event.value as string | undefined) ?? defaults.event) as WorkflowEvent;
  const offered = (WORKFLOW_EVENTS as readonly string[]).includes(event) ? ACTIONS_BY_EVENT[event] : [];
  const conditions = fields.conditions.getFieldList();
  const filters = fields.filters.getFieldList();
  const actions = fields.actions.getFieldList();
  useRowFocus(form.id, focus, { [fields.conditions.name]: conditions.length, [fields.filters.name]: filters.length, [fields.actions.name]: actions.length });
  const { key: eventKey, ...eventProps } = getSelectProps(fields.event as FieldMetadata<string>, { ariaAttributes: true });
  const { key: opKey, ...opProps } = getSelectProps(fields.conditionOperator as FieldMetadata<string>, { ariaAttributes: true });

  return (
    <div className="card">
      <Form method="post" {...getFormProps(form)} className="stack" data-testid="workflow-builder">
        {/* The first submit button answers the Enter key: saving, not adding a row. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden />
        <Field label="Name" field={fields.name} autoComplete="off" />
        <TextareaField label="Description" field={fields.description} rows={2} />

        <div className="field">
          <label htmlFor={fields.event.id}>Trigger event</label>
          <select key={eventKey} {...eventProps}>
            {WORKFLOW_EVENTS.map((e) => (
              <option key={e} value={e}>
                {WORKFLOW_EVENT_LABELS[e]}
              </option>
            ))}
          </select>
          <small className="muted">Actions the event does not offer are flagged when it changes.</small>
          <ErrorList id={fields.event.errorId} errors={fields.event.errors} />
        </div>

        <fieldset data-testid="conditions" className="stack">
          <legend>Trigger conditions</legend>
          <p className="muted" data-testid="conditions-help">
            Trigger conditions are about <strong>who and where</strong>: a new or returning contact, their country, the page they are on, where they
            came from. Filters below are about <strong>what</strong>. The workflow acts only when the conditions hold and every filter matches.
          </p>
          <div className="field">
            <label htmlFor={fields.conditionOperator.id}>Conditions must match</label>
            <select key={opKey} {...opProps}>
              <option value="and">All of them</option>
              <option value="or">Any of them</option>
            </select>
          </div>
          {conditions.length === 0 ? <p className="muted">No conditions: every {WORKFLOW_EVENT_LABELS[event]?.toLowerCase() ?? 'event'} triggers it.</p> : null}
          {conditions.map((condition, i) => {
            const c = condition.getFieldset();
            const field = (c.field.value ?? c.field.initialValue) as ConditionField;
            const n = i + 1;
            return (
              <div key={condition.key ?? i} className="row rule-row" data-testid={`condition-${i}`} {...rowFocusProps(form.id, fields.conditions.name, i, focus)}>
                <Hidden field={c.field} />
                <strong>{TRIGGER_CONDITION_LABELS[field as (typeof TRIGGER_CONDITIONS)[number]] ?? field}</strong>
                {FLAG_FIELDS.includes(field) ? null : (
                  <>
                    <RowControl
                      label="Operator"
                      name={`Condition ${n} operator`}
                      field={c.op}
                      options={(['equal', 'contain'] as const).map((o) => ({
                        value: o,
                        label: CONDITION_OP_LABELS[o],
                      }))}
                    />
                    <RowControl label="Value" name={`Condition ${n} value`} field={c.value} />
                  </>
                )}
                <ErrorList id={c.field.errorId} errors={c.field.errors} />
                <RemoveRowButton label={`Remove condition ${n}`} button={form.remove.getButtonProps({ name: fields.conditions.name, index: i })} />
              </div>
            );
          })}
          <ErrorList id={fields.conditions.errorId} errors={fields.conditions.errors} />
          <AddMenu
            label="Add condition"
            testId="add-condition"
            {...addMenuFocusProps(form.id, fields.conditions.name, focus)}
            disabled={conditions.length >= WORKFLOW_ROWS_MAX}
            items={TRIGGER_CONDITIONS.map((f) => ({
              key: f,
              label: TRIGGER_CONDITION_LABELS[f],
              button: form.insert.getButtonProps({
                name: fields.conditions.name,
                defaultValue: {
                  field: f,
                  op: FLAG_FIELDS.includes(f) ? '' : 'equal',
                  value: '',
                },
              }),
            }))}
          />
        </fieldset>

        <fieldset data-testid="filters" className="stack">
          <legend>Filters</legend>
          <p className="muted" data-testid="filters-help">
            Filters are about <strong>what</strong>: the contact, their email domain, the conversation&apos;s subject or message (the text the customer
            wrote), the assignee, the company. Every filter must match.
          </p>
          {filters.map((filter, i) => {
            const f = filter.getFieldset();
            const field = (f.field.value ?? f.field.initialValue) as FilterField;
            const n = i + 1;
            return (
              <div key={filter.key ?? i} className="row rule-row" data-testid={`filter-${i}`} {...rowFocusProps(form.id, fields.filters.name, i, focus)}>
                <Hidden field={f.field} />
                <strong>{FILTER_LABELS[field] ?? field}</strong>
                <RowControl
                  label="Operator"
                  name={`Filter ${n} operator`}
                  field={f.op}
                  options={TEXT_OPS.map((o) => ({
                    value: o,
                    label: TEXT_OP_LABELS[o],
                  }))}
                />
                {field === 'assignee' ? (
                  <RowControl label="Value" name={`Filter ${n} value`} field={f.value} options={options.users} placeholder="Select a user" />
                ) : (
                  <RowControl label="Value" name={`Filter ${n} value`} field={f.value} />
                )}
                <ErrorList id={f.field.errorId} errors={f.field.errors} />
                <RemoveRowButton label={`Remove filter ${n}`} button={form.remove.getButtonProps({ name: fields.filters.name, index: i })} />
              </div>
            );
          })}
          <ErrorList id={fields.filters.errorId} errors={fields.filters.errors} />
          <AddMenu
            label="Add filter"
            testId="add-filter"
            {...addMenuFocusProps(form.id, fields.filters.name, focus)}
            disabled={filters.length >= WORKFLOW_ROWS_MAX}
            items={FILTER_FIELDS.map((f) => ({
              key: f,
              label: FILTER_LABELS[f],
              button: form.insert.getButtonProps({
                name: fields.filters.name,
                defaultValue: {
                  field: f,
                  op: f === 'assignee' ? 'equals' : 'contains',
                  value: '',
                },
              }),
            }))}
          />
        </fieldset>

        <fieldset data-testid="actions" className="stack">
          <legend>Actions</legend>
          {actions.map((actionRow, i) => {
            const a = actionRow.getFieldset();
            const type = (a.type.value ?? a.type.initialValue) as ActionType;
            const n = i + 1;
            const notOffered = type && !isActionOffered(event, type) && !a.type.errors?.length ? actionNotOfferedMessage(type, event) : null;
            return (
              <div key={actionRow.key ?? i} className="stack rule-row" data-testid={`action-${i}`} {...rowFocusProps(form.id, fields.actions.name, i, focus)}>
                <div className="row">
                  <Hidden field={a.type} />
                  <strong>
                    {n}. {ACTION_LABELS[type] ?? type}
                  </strong>
                  <div className="spacer" />
                  <RemoveRowButton label={`Remove action ${n}`} button={form.remove.getButtonProps({ name: fields.actions.name, index: i })} />
                </div>
                <ErrorList id={a.type.errorId} errors={a.type.errors} />
                {notOffered ? (
                  <p className="field-error" role="alert" data-testid={`action-${i}-not-offered`}>
                    {notOffered}
                  </p>
                ) : null}
                <ActionFields type={type} n={n} a={a} options={options} />
              </div>
            );
          })}
          <ErrorList id={fields.actions.errorId} errors={fields.actions.errors} />
          <AddMenu
            label="Add action"
            testId="add-action"
            {...addMenuFocusProps(form.id, fields.actions.name, focus)}
            disabled={actions.length >= WORKFLOW_ROWS_MAX}
            items={offered.map((t) => ({
              key: t,
              label: ACTION_LABELS[t],
              button: form.insert.getButtonProps({
                name: fields.actions.name,
                defaultValue: { type: t },
              }),
            }))}
          />
        </fieldset>

        <ErrorList id={form.errorId} errors={form.errors} />
        {/* On the right: the flash toast sits bottom-left and stays there without JavaScript. */}
        <div className="row">
          <div className="spacer" />
          <Link to="/workflows" className="btn">
            Cancel
          </Link>
          <button type="submit" name="intent" value="save" className="btn btn-primary">
            Save
          </button>
        </div>
      </Form>
    </div>
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any

function RunHistory({ runs, user }: { runs: NonNullable<LoaderData['runs']>; user: LoaderData['user'] }) {
  return (
    <div className="card stack" data-testid="run-history">
      <h2>Run history</h2>
      {runs.total === 0 ? (
        <p className="muted" data-testid="no-runs">
          No runs yet: the workflow runs when its event happens while it is active.
        </p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>When</th>
              <th>Event</th>
              <th>Result</th>
              <th>Subject</th>
              <th>Steps</th>
            </tr>
          </thead>
          <tbody>
            {runs.runs.map((run) => (
              <tr key={`${run.eventId}`} data-testid={`run-${run.eventId}`}>
                <td>{formatDateTime(run.startedAt, user)}</td>
                <td>{WORKFLOW_EVENT_LABELS[run.eventType as WorkflowEvent] ?? run.eventType}</td>
                <td>
                  <span className={`badge run-${run.state}`} data-state={run.state}>
                    {run.stateLabel}
                  </span>
                </td>
                <td>
                  {run.conversationId ? <Link to={`/inbox/${run.conversationId}`}>Conversation #{run.conversationId}</Link> : null}
                  {run.contactId ? <Link to={`/customers/${run.contactId}`}>Contact #{run.contactId}</Link> : null}
                </td>
                <td>
                  <ol className="run-lines">
                    {run.lines.map((line) => (
                      <li key={line.id} data-step={line.step}>
                        {line.actionType ? `${ACTION_LABELS[line.actionType as ActionType] ?? line.actionType}: ` : ''}
                        {STEP_LABELS[line.step] ?? line.step}
                        {line.text ? ` — ${line.text}` : ''}
                      </li>
                    ))}
                  </ol>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={runs.page} pageSize={runs.pageSize} total={runs.total} />
    </div>
  );
}

const STEP_LABELS: Record<string, string> = {
  matched: 'matched',
  not_matched: 'not matched',
  loop_skipped: 'skipped to stop a loop',
  plan_skipped: 'skipped: not in the plan',
  action_applied: 'applied',
  action_skipped: 'skipped',
  action_failed: 'failed',
};

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.workflow.name ?? 'Workflow', 'Workflows') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
