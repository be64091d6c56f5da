import { getFormProps, getInputProps, getSelectProps, useForm, type FieldMetadata } from '@conform-to/react';
import { TableHead } from '~/components/ui/list-table';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import {
  createRoutingRule,
  deleteRoutingRule,
  getRoutingFormOptions,
  getRoutingRule,
  RoutingInputError,
  updateRoutingRule,
} from '~/models/automation/routing.server';
import { ASSIGN_LIMIT_MAX, ASSIGN_LIMIT_MIN, CONDITION_LABELS, ROUTING_NAME_MAX, RULE_LABELS, rulesForInbox, SUBRULE_CONDITIONS, SUBRULE_VALUE_MAX } from '~/models/automation/routing-constants';
import { RoutingRuleSchema, routingFormDefaults, routingRuleInput } from '~/models/automation/routing.schemas';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/routing';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const rule = id === 'new' ? null : await getRoutingRule({ accountId: ctx.account.id, id });
  if (rule === undefined) throw new Response('Not Found', { status: 404 });
  const options = await getRoutingFormOptions({
    accountId: ctx.account.id,
    ruleId: rule?.id ?? null,
  });
  return {
    rule: rule ? { id: rule.id, name: rule.name } : null,
    defaults: routingFormDefaults(rule),
    options,
    locked: !can(ctx, 'manage_routings'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_routings');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  // "Add a subrule", "Remove" and "Show the rules of this inbox" without JavaScript: the form comes back with the draft, nothing saved.
  if (formData.has('__intent__')) {
    let submission;
    try {
      submission = parseWithZod(formData, { schema: RoutingRuleSchema });
    } catch {
      throw new Response('Unknown intent', { status: 400 });
    }
    return data(submission.reply(), {
      status: submission.status === 'error' ? 400 : 200,
    });
  }

  const intent = formData.get('intent');
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteRoutingRule({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Routing Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: RoutingRuleSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const input = routingRuleInput(submission.value);
  try {
    if (id === 'new') {
      await createRoutingRule({ ...who, ...input });
      return redirectWithToast(LIST, 'Routing Created');
    }
    if (!(await updateRoutingRule({ ...who, id, ...input }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Routing Updated' });
  } catch (err) {
    if (err instanceof RoutingInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { rule: { name: string } | null } | undefined) => (loaderData ? loaderData.rule?.name ?? 'Create Routing Rule' : null),
};

export default function RoutingRulePage() {
  const loaderData = useLoaderData<typeof loader>();
  return <RoutingRuleEditor key={loaderData.rule?.id ?? 'new'} {...loaderData} />;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = FieldMetadata<any, any, any>;

function RoutingRuleEditor({ rule, defaults, options, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `routing-${rule?.id ?? 'new'}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  // Without JavaScript the team select and the limit always show (the server keeps only what the rule uses);
  // with it they follow the rule select. The rules offered follow the inbox either way.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const inbox = options.inboxes.find((i) => String(i.id) === String(fields.inboxId.value ?? ''));
  const offered = rulesForInbox(inbox?.channelType);
  const chosenRule = String(fields.rule.value ?? '');
  const subrules = fields.subrules.getFieldList();
  const agentOptions = options.agents.map((a) => ({
    value: String(a.id),
    label: `${a.firstName} ${a.lastName}`.trim(),
  }));

  return (
    <SettingsPage
      title={rule ? 'Edit Routing Rule' : 'Create Routing Rule'}
      subHeader="Who gets each new conversation of an inbox, and how many open conversations an agent may hold."
      learnMore="/help-center"
      locked={locked}
      actions={rule ? <DeleteConfirm id={`routing-${rule.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        {/* The first submit button answers the Enter key: saving, not adding a row. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden disabled={locked} />
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" maxLength={ROUTING_NAME_MAX} />
          <SelectField
            label="Inbox"
            field={fields.inboxId}
            placeholder="Select an inbox"
            options={options.inboxes.map((i) => ({
              value: String(i.id),
              label: `${i.name} (${i.channelType})${i.taken ? ' — has a rule' : ''}`,
            }))}
          />
          {hydrated ? null : (
            <button className="btn btn-link" {...form.validate.getButtonProps({ name: fields.inboxId.name })}>
              Show the rules of this inbox
            </button>
          )}
          <SelectField label="Rule" field={fields.rule} options={offered.map((r) => ({ value: r, label: RULE_LABELS[r] }))} />
          <p className="muted" data-testid="rules-note">
            {inbox ? `Rules for ${inbox.channelType} inboxes.` : 'Choose an inbox to see all the rules it offers.'} Load Balancing is for email inboxes only,
            URL for web inboxes only.
          </p>

          <div hidden={hydrated && chosenRule !== 'team'} data-testid="team-field">
            <SelectField
              label="Team"
              field={fields.teamId}
              placeholder="Select a team"
              options={options.teams.map((t) => ({
                value: String(t.id),
                label: t.name,
              }))}
            />
          </div>

          <div hidden={hydrated && chosenRule === 'url'} data-testid="limit-field">
            <Field
              label="Assign limit"
              type="number"
              field={fields.assignLimit}
              min={ASSIGN_LIMIT_MIN}
              max={ASSIGN_LIMIT_MAX}
              step={1}
              hint={`Most open conversations an agent may hold in this inbox (${ASSIGN_LIMIT_MIN} to ${ASSIGN_LIMIT_MAX}); empty for no limit. Not used by the URL rule.`}
            />
          </div>

          {/* Always in the form (hidden unless the inbox offers URL) so that a draft's rows survive a change of inbox. */}
          <fieldset hidden={!offered.includes('url') || (hydrated && chosenRule !== 'url')} data-testid="subrules">
            <legend>URL subrules</legend>
            <p className="muted">
              The first subrule whose condition matches the visitor&apos;s page gives the user; no match leaves the conversation unassigned.
            </p>
            <table className="table">
              <TableHead headers={['Value', 'Condition', 'User', { hidden: 'Actions' }]} />
              <tbody>
                {subrules.map((subrule, i) => {
                  const s = subrule.getFieldset();
                  return (
                    <tr key={subrule.key ?? i} data-testid={`subrule-${i}`}>
                      <td>
                        <TextInput field={s.value} label={`Subrule ${i + 1} value`} maxLength={SUBRULE_VALUE_MAX} />
                      </td>
                      <td>
                        <SelectInput
                          field={s.condition}
                          label={`Subrule ${i + 1} condition`}
                          options={SUBRULE_CONDITIONS.map((c) => ({
                            value: c,
                            label: CONDITION_LABELS[c],
                          }))}
                        />
                      </td>
                      <td>
                        <SelectInput field={s.userId} label={`Subrule ${i + 1} user`} options={agentOptions} placeholder="Select a user" />
                      </td>
                      <td>
                        <button
                          className="btn btn-link"
                          aria-label={`Remove subrule ${i + 1}`}
                          {...form.remove.getButtonProps({
                            name: fields.subrules.name,
                            index: i,
                          })}
                        >
                          Remove
                        </button>
                        <ErrorList id={subrule.errorId} errors={subrule.errors} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {subrules.length === 0 ? <p className="muted">No subrules yet.</p> : null}
            <ErrorList id={fields.subrules.errorId} errors={fields.subrules.errors} />
            <button
              className="btn"
              {...form.insert.getButtonProps({
                name: fields.subrules.name,
                defaultValue: { value: '', condition: 'contains' },
              })}
            >
              + Add a subrule
            </button>
          </fieldset>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={rule ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

function TextInput({ field, label, maxLength }: { field: AnyField; label: string; maxLength?: number }) {
  const { key, ...props } = getInputProps(field as FieldMetadata<string>, {
    type: 'text',
    ariaAttributes: true,
  });
  return <input key={key} {...props} aria-label={label} maxLength={maxLength} autoComplete="off" />;
}

function SelectInput({
  field,
  label,
  options,
  placeholder,
}: {
  field: AnyField;
  label: string;
  options: { value: string; label: string }[];
  placeholder?: string;
}) {
  const { key, ...props } = getSelectProps(field as FieldMetadata<string>, {
    ariaAttributes: true,
  });
  return (
    <select key={key} {...props} aria-label={label}>
      {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  {
    title: pageTitle(loaderData?.rule?.name ?? 'Create Routing Rule', 'Routing', 'Settings'),
  },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
