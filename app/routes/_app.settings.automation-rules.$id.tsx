import { getCollectionProps, getFormProps, getSelectProps, useForm, type FieldMetadata } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { ActionFields, AddMenu, addMenuFocusProps, Hidden, RemoveRowButton, RowControl, rowFocusAfter, rowFocusProps, useRowFocus, type AnyField, type RowFocus } from '~/components/automation/rule-rows';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { actionsForEvent, CONDITION_OP_LABELS, INBOX_RULE_EVENT_LABELS, opsForField, RULE_CONDITION_FIELD_LABELS, RULE_DESCRIPTION_MAX, RULE_NAME_MAX, RULE_ROWS_MAX, SOURCE_TYPE_LABELS, SOURCE_TYPES_BY_EVENT, SURVEY_SOURCE_TYPE_LABELS } from '~/models/automation/automation-rules-constants';
import { AutomationRuleSchema, automationRuleFormDefaults, automationRuleInput } from '~/models/automation/automation-rules.schemas';
import {
  AutomationRuleInputError,
  createAutomationRule,
  deleteAutomationRule,
  getAutomationRule,
  updateAutomationRule,
} from '~/models/automation/automation-rules.server';
import { ACTION_LABELS, INBOX_RULE_EVENTS, RULE_CONDITION_FIELDS, type ActionType, type InboxRuleEvent } from '~/models/automation/rule-constants';
import { listInboxes } from '~/models/inbox/inboxes.server';
import { listTags } from '~/models/productivity/tags.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { listTeamCandidates } from '~/models/teams/teams.server';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/automation-rules';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const rule = id === 'new' ? null : await getAutomationRule({ accountId: ctx.account.id, id });
  if (rule === undefined) throw new Response('Not Found', { status: 404 });
  const [inboxes, users, tags] = await Promise.all([
    listInboxes({ accountId: ctx.account.id }),
    listTeamCandidates({ accountId: ctx.account.id }),
    listTags({ accountId: ctx.account.id }),
  ]);
  return {
    rule: rule ? { id: rule.id, name: rule.name } : null,
    defaults: automationRuleFormDefaults(rule ?? null),
    options: {
      inboxes: inboxes.map((i) => ({ value: String(i.id), label: i.name })),
      users: users.map((u) => ({
        value: String(u.id),
        label: `${u.firstName} ${u.lastName}`.trim() || u.email,
      })),
      tags: tags.map((t) => ({ value: String(t.id), label: t.name })),
    },
    locked: !can(ctx, 'manage_workflow_rules'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_workflow_rules');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  // "Add", "Remove" and "Apply" (a changed event) without JavaScript: the form comes back with the draft changed, nothing saved.
  if (formData.has('__intent__')) {
    let submission;
    try {
      submission = parseWithZod(formData, { schema: AutomationRuleSchema });
    } catch {
      throw new Response('Unknown intent', { status: 400 });
    }
    // The focus goes to the added row, or the removed one's neighbour, with and without JavaScript (rule-rows).
    return data({ reply: submission.reply(), focus: rowFocusAfter(formData, submission.payload) }, { status: submission.status === 'error' ? 400 : 200 });
  }

  const intent = formData.get('intent');
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteAutomationRule({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, {
      type: 'info',
      text: 'Automation Rule Deleted',
    });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: AutomationRuleSchema });
  if (submission.status !== 'success') return data({ reply: submission.reply(), focus: null }, { status: 400 });
  const input = automationRuleInput(submission.value);
  try {
    if (id === 'new') {
      await createAutomationRule({ ...who, input });
      return redirectWithToast(LIST, 'Automation Rule Created');
    }
    if (!(await updateAutomationRule({ ...who, id, input }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, {
      type: 'info',
      text: 'Automation Rule Updated',
    });
  } catch (err) {
    if (err instanceof AutomationRuleInputError) return data({ reply: submission.reply({ fieldErrors: { [err.field]: [err.message] } }), focus: null }, { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { rule: { name: string } | null } | undefined) => (loaderData ? loaderData.rule?.name ?? 'Create Automation Rule' : null),
};

export default function AutomationRulePage() {
  const loaderData = useLoaderData<typeof loader>();
  return <AutomationRuleEditor key={loaderData.rule?.id ?? 'new'} {...loaderData} />;
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;

function AutomationRuleEditor({ rule, defaults, options, locked }: LoaderData) {
  const actionData = useActionData<typeof action>();
  const focus: RowFocus | undefined = actionData?.focus;
  const [form, fields] = useForm({
    id: `automation-rule-${rule?.id ?? 'new'}`,
    lastResult: actionData?.reply,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  // With JavaScript the event's choices follow the select at once; without it, "Apply" brings them.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const eventValue = (fields.event.value as string | undefined) ?? defaults.event;
  const event = (INBOX_RULE_EVENTS as readonly string[]).includes(eventValue) ? (eventValue as InboxRuleEvent) : null;
  const sourceTypes = event ? SOURCE_TYPES_BY_EVENT[event] : [];
  const sourceTypeLabels = event === 'survey_received' ? SURVEY_SOURCE_TYPE_LABELS : SOURCE_TYPE_LABELS;
  const offered = event ? actionsForEvent(event) : [];
  const conditions = fields.conditions.getFieldList();
  const actions = fields.actions.getFieldList();
  useRowFocus(form.id, focus, { [fields.conditions.name]: conditions.length, [fields.actions.name]: actions.length });
  const sourceErrors = [...new Set(Object.values(fields.sources.allErrors).flat())];
  const sourceBoxes = getCollectionProps(fields.sources, {
    type: 'checkbox',
    options: options.inboxes.map((i) => i.value),
    ariaAttributes: true,
  });
  const { key: eventKey, ...eventProps } = getSelectProps(fields.event as FieldMetadata<string>, { ariaAttributes: true });
  const { key: opKey, ...opProps } = getSelectProps(fields.conditionOperator as FieldMetadata<string>, { ariaAttributes: true });

  return (
    <SettingsPage
      title={rule ? 'Edit Automation Rule' : 'Create Automation Rule'}
      subHeader="When an event happens in the chosen inboxes and the conditions hold, the actions run."
      learnMore="/help-center"
      locked={locked}
      actions={rule ? <DeleteConfirm id={`automation-rule-${rule.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        {/* The first submit button answers the Enter key: saving, not adding a row. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden disabled={locked} />
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" maxLength={RULE_NAME_MAX} />
          <TextareaField label="Description" field={fields.description} maxLength={RULE_DESCRIPTION_MAX} />
          <CheckboxField label="Active" field={fields.isActive} />

          <div className="field">
            <label htmlFor={fields.event.id}>When</label>
            <div className="row">
              <select key={eventKey} {...eventProps}>
                <option value="">Select an event</option>
                {INBOX_RULE_EVENTS.map((e) => (
                  <option key={e} value={e}>
                    {INBOX_RULE_EVENT_LABELS[e]}
                  </option>
                ))}
              </select>
              {hydrated ? null : (
                <button className="btn" {...form.validate.getButtonProps({ name: fields.event.name })}>
                  Apply
                </button>
              )}
            </div>
            <small className="muted">The source types and actions offered depend on the event.</small>
            <ErrorList id={fields.event.errorId} errors={fields.event.errors} />
          </div>

          {sourceTypes.length ? (
            <RowControl
              label="Source type"
              name="Source type"
              field={fields.sourceType}
              options={sourceTypes.map((s) => ({
                value: s,
                label: sourceTypeLabels[s] ?? s,
              }))}
              placeholder={event === 'survey_received' ? 'Select a survey' : 'Any source type'}
            />
          ) : null}

          <fieldset aria-describedby={fields.sources.errorId} data-testid="sources">
            <legend>Sources</legend>
            <p className="muted">The inboxes whose conversations, surveys and reviews this rule watches.</p>
            {options.inboxes.length === 0 ? <p className="muted">This account has no inboxes yet.</p> : null}
            <div className="perm-grid">
              {options.inboxes.map((inbox, i) => {
                const { key, ...props } = sourceBoxes[i];
                return (
                  <label key={key} className="check">
                    <input {...props} /> {inbox.label}
                  </label>
                );
              })}
            </div>
            <ErrorList id={fields.sources.errorId} errors={sourceErrors} />
          </fieldset>

          <fieldset data-testid="conditions" className="stack">
            <legend>Conditions</legend>
            <div className="field">
              <label htmlFor={fields.conditionOperator.id}>Operator</label>
              <select key={opKey} {...opProps}>
                <option value="and">AND: all conditions hold</option>
                <option value="or">OR: any condition holds</option>
              </select>
            </div>
            {conditions.length === 0 ? <p className="muted">No conditions: the actions run for every event of the sources.</p> : null}
            {conditions.map((condition, i) => {
              const c = condition.getFieldset();
              const field = ((c.field.value as string | undefined) ??
                (c.field.initialValue as string | undefined) ??
                '') as (typeof RULE_CONDITION_FIELDS)[number];
              const n = i + 1;
              return (
                <div key={condition.key ?? i} className="row rule-row" data-testid={`condition-${i}`} {...rowFocusProps(form.id, fields.conditions.name, i, focus)}>
                  <Hidden field={c.field} />
                  <strong>{RULE_CONDITION_FIELD_LABELS[field] ?? field}</strong>
                  <RowControl
                    label="If"
                    name={`Condition ${n} operator`}
                    field={c.op}
                    options={opsForField(field).map((o) => ({
                      value: o,
                      label: CONDITION_OP_LABELS[o],
                    }))}
                  />
                  <RowControl label="Value" name={`Condition ${n} value`} field={c.value} />
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
              disabled={conditions.length >= RULE_ROWS_MAX}
              items={RULE_CONDITION_FIELDS.map((f) => ({
                key: f,
                label: RULE_CONDITION_FIELD_LABELS[f],
                button: form.insert.getButtonProps({
                  name: fields.conditions.name,
                  defaultValue: { field: f, op: opsForField(f)[0], value: '' },
                }),
              }))}
            />
          </fieldset>

          <fieldset data-testid="actions" className="stack">
            <legend>Actions</legend>
            {actions.map((actionRow, i) => {
              const a = actionRow.getFieldset();
              const type = ((a.type.value as string | undefined) ?? (a.type.initialValue as string | undefined) ?? '') as ActionType;
              const n = i + 1;
              return (
                <div key={actionRow.key ?? i} className="stack rule-row" data-testid={`action-${i}`} {...rowFocusProps(form.id, fields.actions.name, i, focus)}>
                  <div className="row">
                    <Hidden field={a.type} />
                    <strong>
                      {n}. {ACTION_LABELS[type] ?? 'No action chosen'}
                    </strong>
                    <div className="spacer" />
                    <RemoveRowButton label={`Remove action ${n}`} button={form.remove.getButtonProps({ name: fields.actions.name, index: i })} />
                  </div>
                  <ErrorList id={a.type.errorId} errors={a.type.errors} />
                  <ActionFields type={type} n={n} a={a as unknown as Record<string, AnyField>} options={options} />
                </div>
              );
            })}
            <ErrorList id={fields.actions.errorId} errors={fields.actions.errors} />
            <AddMenu
              label="Add action"
              testId="add-action"
              {...addMenuFocusProps(form.id, fields.actions.name, focus)}
              disabled={actions.length >= RULE_ROWS_MAX}
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
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={rule ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  {
    title: pageTitle(loaderData?.rule?.name ?? 'Create Automation Rule', 'Automation Rules', 'Settings'),
  },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
