import { getFormProps, useForm } from '@conform-to/react';
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { CONVERSION_LIMITS, URL_OP_LABELS, URL_OPS } from '~/models/conversions/constants';
import type { conversionEditorAction, conversionEditorLoader } from '~/models/conversions/editor-route.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';

/**
 * The editor page of a conversion goal or a sales tracker (Settings → Conversions, ADR 104, 120): one component for
 * both routes, the fields of its kind. Works without JavaScript (post, redirect, field errors shown back).
 */
type Data = Awaited<ReturnType<typeof conversionEditorLoader>>;
type ActionData = Awaited<ReturnType<typeof conversionEditorAction>>;

const TEXT = {
  goal: { add: 'Add Goal', edit: 'Edit Goal', list: '/settings/goals', section: 'Goals', learn: '/help-center/analytics#goals' },
  tracker: {
    add: 'Add Sales Tracker',
    edit: 'Edit Sales Tracker',
    list: '/settings/sales-tracker',
    section: 'Sales Tracker',
    learn: '/help-center/analytics#sales-tracker',
  },
} as const;

const itemOf = (d: Data) => (d.kind === 'goal' ? d.goal : d.tracker);

export function ConversionEditorPage() {
  const data = useLoaderData<Data>();
  return <Editor key={`${data.kind}-${itemOf(data)?.id ?? 'new'}`} data={data} />;
}

export const conversionEditorHandle = {
  breadcrumb: (d: Data | undefined) => (d ? itemOf(d)?.name ?? TEXT[d.kind].add : null),
};

export const conversionEditorMeta: MetaFunction = ({ data }) => {
  const d = data as Data | undefined;
  return [{ title: d ? pageTitle(itemOf(d)?.name ?? TEXT[d.kind].add, TEXT[d.kind].section, 'Settings') : pageTitle('Settings') }];
};

function Editor({ data }: { data: Data }) {
  const lastResult = useActionData<ActionData>();
  const { kind, locked, goal, tracker } = data;
  const item = itemOf(data);
  const t = TEXT[kind];
  const [form, fields] = useForm<Record<string, string>>({
    id: `${kind}-${item?.id ?? 'new'}`,
    lastResult: lastResult as never,
    defaultValue: goal
      ? {
          name: goal.name,
          kind: goal.kind,
          eventName: goal.eventName,
          urlOp: goal.urlOp ?? 'contains',
          urlValue: goal.urlValue ?? '',
          description: goal.description,
          attributionDays: String(goal.attributionDays),
          active: goal.active ? 'on' : '',
        }
      : tracker
      ? { name: tracker.name, currency: tracker.currency, attributionDays: String(tracker.attributionDays), active: tracker.active ? 'on' : '' }
      : kind === 'goal'
      ? { kind: 'event', urlOp: 'contains', attributionDays: '30', active: 'on' }
      : { currency: 'USD', attributionDays: '30', active: 'on' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={item ? t.edit : t.add}
      subHeader={
        kind === 'goal'
          ? 'A goal counts each contact once, the first time your site reports its event or they view a page matching its URL; it is attributed to the conversation in which an agent last replied within the attribution window.'
          : 'Sales your site reports are attributed to the conversation in which an agent last replied within the attribution window.'
      }
      learnMore={t.learn}
      locked={locked}
      actions={item ? <DeleteConfirm id={`${kind}-${item.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field
            label={kind === 'goal' ? 'Goal Name' : 'Tracker Name'}
            field={fields.name}
            disabled={locked}
            autoComplete="off"
            maxLength={CONVERSION_LIMITS.nameMax}
          />
          {kind === 'goal' ? (
            <>
              <SelectField
                label="Reached when"
                field={fields.kind}
                options={[
                  { value: 'event', label: 'An event is reported' },
                  { value: 'url', label: 'A page is viewed (URL)' },
                ]}
              />
              <Field
                label="Event Name"
                field={fields.eventName}
                disabled={locked}
                autoComplete="off"
                hint={
                  <>
                    For event goals. Your site reports it with <code>Parley.track('{fields.eventName.value || 'signup'}')</code>; <code>sale</code> counts
                    sales.
                  </>
                }
              />
              <SelectField label="URL" field={fields.urlOp} options={URL_OPS.map((op) => ({ value: op, label: URL_OP_LABELS[op] }))} />
              <Field
                label="URL value"
                field={fields.urlValue}
                disabled={locked}
                autoComplete="off"
                maxLength={CONVERSION_LIMITS.urlValueMax}
                hint="For URL goals, such as /thank-you or https://shop.example.com/checkout/done. A value starting with / is compared with the page's path."
              />
              <TextareaField label="Description" field={fields.description} disabled={locked} maxLength={CONVERSION_LIMITS.descriptionMax} />
            </>
          ) : (
            <Field
              label="Currency"
              field={fields.currency}
              disabled={locked}
              autoComplete="off"
              maxLength={3}
              hint="The currency of a sale reported without one (ISO 4217, such as USD)."
            />
          )}
          <Field
            label="Attribution window (days)"
            type="number"
            field={fields.attributionDays}
            disabled={locked}
            min={1}
            max={CONVERSION_LIMITS.attributionDaysMax}
          />
          <CheckboxField label="Active" field={fields.active} disabled={locked} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        {tracker ? (
          <p className="muted">
            Report a sale with{' '}
            <code>{`Parley.track('sale', { amount: 49.90, currency: '${tracker.currency}', orderId: 'A-1042', tracker: ${tracker.id} })`}</code>.
          </p>
        ) : null}
        <FormActions cancelTo={t.list} submitLabel={item ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}
