import { getFormProps, useForm, type FieldMetadata } from '@conform-to/react';
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { FormActions } from '~/components/ui/settings-page';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import {
  ACTION_KEYS,
  KEY_LABELS,
  OPERATOR_LABELS,
  operatorsFor,
  PROPERTY_KEYS,
  PUSH_CONDITIONS_MAX,
  PUSH_OPERATORS,
  PUSH_SEGMENT_NAME_MAX,
  PUSH_SEGMENT_TOASTS,
  valueChoices,
} from '~/models/campaigns/push-constants';
import { PushSegmentSchema } from '~/models/campaigns/push-schemas';
import { countPushSegment, createPushSegment, deletePushSegment, getPushSegment, updatePushSegment } from '~/models/campaigns/push-segments.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { redirectWithToast } from '~/utils/toast.server';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/campaigns/push-segment';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/webPush', await requireUser(request));
  const id = readEditorParam(params.id);
  const segment = id === 'new' ? null : await getPushSegment({ accountId: ctx.account.id, id });
  if (segment === undefined) throw new Response('Not Found', { status: 404 });
  return {
    segment: segment
      ? {
          id: segment.id,
          name: segment.name,
          actionOperator: segment.actionOperator,
          actions: segment.actions,
          propertyOperator: segment.propertyOperator,
          properties: segment.properties,
        }
      : null,
    matches: segment ? await countPushSegment({ accountId: ctx.account.id, segment }) : null,
    locked: !can(ctx, 'manage_campaigns'),
  };
}

/**
 * Section 4 "changing a condition key clears its value": each row carries the key it was drawn for (`prevKey`);
 * a row whose key changed since is read with an empty value, with JavaScript or without.
 */
function clearChangedValues(formData: FormData) {
  for (const group of ['actions', 'properties']) {
    for (let i = 0; i < PUSH_CONDITIONS_MAX + 1; i++) {
      const key = formData.get(`${group}[${i}].key`);
      if (key === null) continue;
      const prev = formData.get(`${group}[${i}].prevKey`);
      if (prev !== null && prev !== key) formData.set(`${group}[${i}].value`, '');
      formData.delete(`${group}[${i}].prevKey`);
    }
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/webPush', await requirePermission(request, 'manage_campaigns'));
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (formData.get('intent') === 'delete' && id !== 'new') {
    if (!(await deletePushSegment({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: PUSH_SEGMENT_TOASTS.deleted });
  }
  clearChangedValues(formData);
  const submission = parseWithZod(formData, { schema: PushSegmentSchema });
  // Add, remove and "show choices" buttons (conform intents) come back with the form as it now is, without JS too.
  if (submission.status === undefined) return data(submission.reply());
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  if (id === 'new') {
    const row = await createPushSegment({ ...who, ...submission.value });
    return redirectWithToast(`${LIST}/${row.id}`, PUSH_SEGMENT_TOASTS.created);
  }
  if (!(await updatePushSegment({ ...who, id, ...submission.value }))) throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: PUSH_SEGMENT_TOASTS.updated });
}

export const handle = {
  breadcrumb: (loaderData: { segment: { name: string } | null } | undefined) => (loaderData ? loaderData.segment?.name ?? 'New Push Segment' : null),
};

export default function PushSegmentPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <PushSegmentEditor key={loaderData.segment?.id ?? 'new'} {...loaderData} />;
}

type Row = { key?: string; operator?: string; value?: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RowField = FieldMetadata<Row, any, string[]>;

function PushSegmentEditor({ segment, matches, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `push-segment-${segment?.id ?? 'new'}`,
    lastResult,
    defaultValue: segment ?? { actionOperator: 'AND', propertyOperator: 'AND', actions: [{ key: 'pageUrl', operator: 'contains', value: '' }], properties: [] },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const groups = [
    {
      name: 'actions' as const,
      legend: 'Actions',
      hint: 'What the visitor did when subscribing.',
      keys: ACTION_KEYS,
      field: fields.actions,
      operator: fields.actionOperator,
      first: 'pageUrl',
    },
    {
      name: 'properties' as const,
      legend: 'Properties',
      hint: 'The visitor’s browser and place.',
      keys: PROPERTY_KEYS,
      field: fields.properties,
      operator: fields.propertyOperator,
      first: 'os',
    },
  ];
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>{segment ? segment.name : 'New Push Segment'}</h1>
        <div className="spacer" />
        {segment && !locked ? <DeleteConfirm id={`push-segment-${segment.id}`} label="Delete" /> : null}
      </header>
      {locked ? (
        <p className="card" role="note">
          {ROLE_LOCKED_MESSAGE}
        </p>
      ) : null}
      {matches !== null ? (
        <p className="muted" data-testid="push-segment-matches">
          Matches {matches} {matches === 1 ? 'subscriber' : 'subscribers'} now.
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="card stack">
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" maxLength={PUSH_SEGMENT_NAME_MAX} />
          {groups.map((g) => {
            const rows = g.field.getFieldList();
            return (
              <fieldset key={g.name} className="stack" data-testid={`push-${g.name}`}>
                <legend>{g.legend}</legend>
                <p className="muted">{g.hint}</p>
                <div className="field">
                  <label htmlFor={g.operator.id}>Match</label>
                  <select id={g.operator.id} name={g.operator.name} defaultValue={String(g.operator.initialValue ?? 'AND')} key={g.operator.key}>
                    <option value="AND">All conditions (AND)</option>
                    <option value="OR">Any condition (OR)</option>
                  </select>
                  <ErrorList id={g.operator.errorId} errors={g.operator.errors} />
                </div>
                {rows.map((row, i) => (
                  <ConditionRow
                    key={row.key}
                    row={row as unknown as RowField}
                    index={i}
                    group={g.legend}
                    keys={g.keys}
                    remove={form.remove.getButtonProps({ name: g.field.name, index: i })}
                    refresh={form.validate.getButtonProps({ name: row.name })}
                  />
                ))}
                <ErrorList id={g.field.errorId} errors={g.field.errors} />
                {rows.length < PUSH_CONDITIONS_MAX ? (
                  <div className="row">
                    <button
                      className="btn"
                      {...form.insert.getButtonProps({ name: g.field.name, defaultValue: { key: g.first, operator: 'equals', value: '' } })}
                    >
                      Add {g.name === 'actions' ? 'action' : 'property'}
                    </button>
                  </div>
                ) : null}
              </fieldset>
            );
          })}
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        {locked ? null : <FormActions cancelTo={LIST} submitLabel={segment ? 'Update' : 'Create'} intent="save" />}
      </Form>
    </section>
  );
}

/** One condition: key, operator, value. Changing the key clears the value (at once with JS, on the next submit without). */
function ConditionRow({
  row,
  index,
  group,
  keys,
  remove,
  refresh,
}: {
  row: RowField;
  index: number;
  group: string;
  keys: readonly string[];
  remove: ReturnType<ReturnType<typeof useForm>[0]['remove']['getButtonProps']>;
  refresh: ReturnType<ReturnType<typeof useForm>[0]['validate']['getButtonProps']>;
}) {
  const f = row.getFieldset();
  const [key, setKey] = useState(String(f.key.initialValue ?? ''));
  const [cleared, setCleared] = useState(0);
  const operators = key ? operatorsFor(key) : PUSH_OPERATORS;
  const choices = valueChoices(key);
  const n = index + 1;
  const valueProps = {
    id: f.value.id,
    name: f.value.name,
    defaultValue: cleared ? '' : String(f.value.initialValue ?? ''),
    'aria-invalid': f.value.errors ? true : undefined,
    'aria-describedby': f.value.errors ? f.value.errorId : undefined,
  } as const;
  return (
    <div className="row wrap condition" data-testid={`condition-${group.toLowerCase()}-${n}`} role="group" aria-label={`${group} condition ${n}`}>
      <input type="hidden" name={`${row.name}.prevKey`} value={key} />
      <div className="field">
        <label htmlFor={f.key.id}>Field</label>
        <select
          id={f.key.id}
          name={f.key.name}
          defaultValue={key}
          aria-invalid={f.key.errors ? true : undefined}
          aria-describedby={f.key.errors ? f.key.errorId : undefined}
          onChange={(e) => {
            setKey(e.currentTarget.value);
            setCleared((c) => c + 1);
          }}
        >
          <option value="">Choose a field</option>
          {keys.map((k) => (
            <option key={k} value={k}>
              {KEY_LABELS[k as keyof typeof KEY_LABELS]}
            </option>
          ))}
        </select>
        <ErrorList id={f.key.errorId} errors={f.key.errors} />
      </div>
      <div className="field">
        <label htmlFor={f.operator.id}>Operator</label>
        <select
          key={`${key}-${cleared}`}
          id={f.operator.id}
          name={f.operator.name}
          defaultValue={operators.includes(f.operator.initialValue as never) ? String(f.operator.initialValue) : operators[0]}
          aria-invalid={f.operator.errors ? true : undefined}
          aria-describedby={f.operator.errors ? f.operator.errorId : undefined}
        >
          {operators.map((o) => (
            <option key={o} value={o}>
              {OPERATOR_LABELS[o]}
            </option>
          ))}
        </select>
        <ErrorList id={f.operator.errorId} errors={f.operator.errors} />
      </div>
      <div className="field">
        <label htmlFor={f.value.id}>Value</label>
        {choices ? (
          <select key={`${key}-${cleared}`} {...valueProps}>
            <option value="">Choose a value</option>
            {choices.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        ) : (
          <input key={`${key}-${cleared}`} type={key === 'subscribed' ? 'date' : 'text'} autoComplete="off" {...valueProps} />
        )}
        <ErrorList id={f.value.errorId} errors={f.value.errors} />
      </div>
      <div className="row">
        <button className="btn btn-link" {...refresh} aria-label={`Show choices for ${group.toLowerCase()} condition ${n}`}>
          Show choices
        </button>
        <button className="btn btn-link" {...remove} aria-label={`Remove ${group.toLowerCase()} condition ${n}`}>
          Remove
        </button>
      </div>
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.segment?.name ?? 'New Push Segment', 'Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
