import { getCollectionProps, getFormProps, getInputProps, getSelectProps, useForm, type FieldMetadata } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { SLA_DEFAULT_RESOLVE, SLA_DEFAULT_RESPONSE, SLA_MAX_ESCALATION_EMAILS, SLA_NAME_MAX, SLA_PRIORITIES, SLA_PRIORITY_LABELS, SLA_UNIT_LABELS, SLA_UNITS } from '~/models/automation/sla-policies-constants';
import { SlaPolicySchema, slaPolicyFormDefaults, slaPolicyInput } from '~/models/automation/sla-policies.schemas';
import { createSlaPolicy, deleteSlaPolicy, getSlaPolicy, SlaPolicyInputError, updateSlaPolicy } from '~/models/automation/sla-policies.server';
import { listInboxes } from '~/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/sla-policy';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'workflowAutomation/slaManagement');
  const id = readEditorParam(params.id);
  const policy = id === 'new' ? null : await getSlaPolicy({ accountId: ctx.account.id, id });
  if (policy === undefined) throw new Response('Not Found', { status: 404 });
  const inboxes = await listInboxes({ accountId: ctx.account.id });
  return {
    policy: policy ? { id: policy.id, name: policy.name } : null,
    defaults: slaPolicyFormDefaults(policy ?? null),
    inboxes: inboxes.map((i) => ({ id: i.id, name: i.name })),
    locked: !can(ctx, 'manage_sla'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'workflowAutomation/slaManagement');
  if (!can(ctx, 'manage_sla')) await roleDenied(request);
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  // "Add a target", "Add an e-mail" and "Remove" without JavaScript: the form comes back with the draft changed, nothing saved.
  if (formData.has('__intent__')) {
    let submission;
    try {
      submission = parseWithZod(formData, { schema: SlaPolicySchema });
    } catch {
      throw new Response('Unknown intent', { status: 400 });
    }
    return data(submission.reply(), { status: submission.status === 'error' ? 400 : 200 });
  }

  const intent = formData.get('intent');
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteSlaPolicy({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'SLA Policy Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: SlaPolicySchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const input = slaPolicyInput(submission.value);
  try {
    if (id === 'new') {
      await createSlaPolicy({ ...who, ...input });
      return redirectWithToast(LIST, 'SLA Policy Created');
    }
    if (!(await updateSlaPolicy({ ...who, id, ...input }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'SLA Policy Updated' });
  } catch (err) {
    if (err instanceof SlaPolicyInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { policy: { name: string } | null } | undefined) => (loaderData ? (loaderData.policy?.name ?? 'Create SLA Policy') : null),
};

export default function SlaPolicyPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <SlaPolicyEditor key={loaderData.policy?.id ?? 'new'} {...loaderData} />;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = FieldMetadata<any, any, any>;

function SlaPolicyEditor({ policy, defaults, inboxes, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `sla-policy-${policy?.id ?? 'new'}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  // Without JavaScript the escalation rows always show (and are ignored while escalation is off); with it they follow the switch.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const [isEscalate, setIsEscalate] = useState(fields.isEscalate.initialValue === 'on');
  const targets = fields.targets.getFieldList();
  const emails = fields.escalateTo.getFieldList();
  const inboxErrors = [...new Set(Object.values(fields.inboxIds.allErrors).flat())];
  const inboxBoxes = getCollectionProps(fields.inboxIds, { type: 'checkbox', options: inboxes.map((i) => String(i.id)), ariaAttributes: true });
  const { key: escalateKey, ...escalateProps } = getInputProps(fields.isEscalate as FieldMetadata<boolean>, { type: 'checkbox', ariaAttributes: true });

  return (
    <SettingsPage
      title={policy ? 'Edit SLA Policy' : 'Create SLA Policy'}
      subHeader="How fast conversations of each priority get a first response and get resolved. Inboxes with business hours count only open time."
      learnMore="/help-center"
      locked={locked}
      actions={policy ? <DeleteConfirm id={`sla-policy-${policy.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        {/* The first submit button answers the Enter key: saving, not adding a row. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden disabled={locked} />
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" maxLength={SLA_NAME_MAX} />
          <CheckboxField label="Active" field={fields.isActive} />

          <fieldset aria-describedby={fields.inboxIds.errorId} data-testid="inboxes">
            <legend>Inboxes</legend>
            <p className="muted">Leave every box empty to apply this policy to each inbox that has no policy of its own.</p>
            {inboxes.length === 0 ? <p className="muted">This account has no inboxes yet.</p> : null}
            <div className="perm-grid">
              {inboxes.map((inbox, i) => {
                const { key, ...props } = inboxBoxes[i];
                return (
                  <label key={key} className="check">
                    <input {...props} /> {inbox.name}
                  </label>
                );
              })}
            </div>
            <ErrorList id={fields.inboxIds.errorId} errors={inboxErrors} />
          </fieldset>

          <fieldset data-testid="targets" aria-describedby={fields.targets.errorId}>
            <legend>Targets</legend>
            <table className="table">
              <thead>
                <tr>
                  <th>Priority</th>
                  <th>Respond within</th>
                  <th>Resolve within</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {targets.map((target, i) => {
                  const row = target.getFieldset();
                  const response = row.response.getFieldset();
                  const resolve = row.resolve.getFieldset();
                  const name = SLA_PRIORITY_LABELS[row.priority.value as keyof typeof SLA_PRIORITY_LABELS] ?? `Target ${i + 1}`;
                  return (
                    <tr key={target.key ?? i} data-testid={`target-${i}`}>
                      <td>
                        <Select field={row.priority} label={`Target ${i + 1} priority`} placeholder="Priority" options={SLA_PRIORITIES.map((p) => ({ value: p, label: SLA_PRIORITY_LABELS[p] }))} />
                      </td>
                      <td>
                        <Duration value={response.value} unit={response.unit} label={`${name} response`} />
                      </td>
                      <td>
                        <Duration value={resolve.value} unit={resolve.unit} label={`${name} resolve`} />
                      </td>
                      <td>
                        {targets.length > 1 ? (
                          <button className="btn btn-link" aria-label={`Remove target ${i + 1}`} {...form.remove.getButtonProps({ name: fields.targets.name, index: i })}>
                            Remove
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <ErrorList id={fields.targets.errorId} errors={fields.targets.errors} />
            {targets.length < SLA_PRIORITIES.length ? (
              <button
                className="btn"
                {...form.insert.getButtonProps({
                  name: fields.targets.name,
                  defaultValue: { priority: '', response: { value: String(SLA_DEFAULT_RESPONSE.value), unit: SLA_DEFAULT_RESPONSE.unit }, resolve: { value: String(SLA_DEFAULT_RESOLVE.value), unit: SLA_DEFAULT_RESOLVE.unit } },
                })}
              >
                + Add a target
              </button>
            ) : null}
          </fieldset>

          <div className="field">
            <label className="check">
              <input key={escalateKey} {...escalateProps} onChange={(e) => setIsEscalate(e.currentTarget.checked)} /> Escalate breaches by e-mail
            </label>
          </div>
          <fieldset hidden={hydrated && !isEscalate} data-testid="escalation" aria-describedby={fields.escalateTo.errorId}>
            <legend>Escalate to</legend>
            <p className="muted">Up to {SLA_MAX_ESCALATION_EMAILS} e-mail addresses, told when a target is missed. Used only when escalation is on.</p>
            {emails.map((email, i) => (
              <div key={email.key ?? i} className="row" data-testid={`escalation-${i}`}>
                <Field label={`Escalation e-mail ${i + 1}`} type="email" field={email} autoComplete="off" />
                <button className="btn btn-link" aria-label={`Remove escalation e-mail ${i + 1}`} {...form.remove.getButtonProps({ name: fields.escalateTo.name, index: i })}>
                  Remove
                </button>
              </div>
            ))}
            <ErrorList id={fields.escalateTo.errorId} errors={fields.escalateTo.errors} />
            <button className="btn" {...form.insert.getButtonProps({ name: fields.escalateTo.name, defaultValue: '' })}>
              + Add an e-mail
            </button>
          </fieldset>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={policy ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

function Select({ field, label, options, placeholder }: { field: AnyField; label: string; options: { value: string; label: string }[]; placeholder: string }) {
  const { key, ...props } = getSelectProps(field as FieldMetadata<string>, { ariaAttributes: true });
  return (
    <>
      <select key={key} {...props} aria-label={label}>
        <option value="">{placeholder}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <ErrorList id={field.errorId} errors={field.errors} />
    </>
  );
}

/** A value and its unit. The value is a text box (numeric keyboard) so that what was typed comes back with its error. */
function Duration({ value, unit, label }: { value: AnyField; unit: AnyField; label: string }) {
  const { key, ...valueProps } = getInputProps(value as FieldMetadata<string>, { type: 'text', ariaAttributes: true });
  return (
    <div className="row">
      <input key={key} {...valueProps} inputMode="numeric" size={5} aria-label={`${label} value`} />
      <Select field={unit} label={`${label} unit`} placeholder="Unit" options={SLA_UNITS.map((u) => ({ value: u, label: SLA_UNIT_LABELS[u] }))} />
      <ErrorList id={value.errorId} errors={value.errors} />
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.policy?.name ?? 'Create SLA Policy', 'SLA Policy', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
