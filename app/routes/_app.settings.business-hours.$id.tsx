import { getFormProps, getInputProps, useForm, type FieldMetadata } from '@conform-to/react';
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
  createBusinessHours,
  deleteBusinessHours,
  getBusinessHours,
  updateBusinessHours,
} from '~/models/automation/business-hours.server';
import { BUSINESS_HOURS_NAME_MAX, DEFAULT_END_TIME, DEFAULT_START_TIME, HOLIDAY_NAME_MAX, WEEK_DAYS } from '~/models/automation/business-hours-constants';
import { BusinessHoursSchema, businessHoursFormDefaults, businessHoursInput } from '~/models/automation/schemas';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/business-hours';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const hours = id === 'new' ? null : await getBusinessHours({ accountId: ctx.account.id, id });
  if (hours === undefined) throw new Response('Not Found', { status: 404 });
  return {
    hours: hours ? { id: hours.id, name: hours.name } : null,
    defaults: businessHoursFormDefaults(hours ?? null, ctx.user.timezone || 'UTC'),
    timeZones: timeZoneNames(),
    locked: !can(ctx, 'manage_business_hours'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_business_hours');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  // "Add a period", "Add Holiday" and "Remove" rows without JavaScript: the form comes back with the draft changed, nothing saved.
  if (formData.has('__intent__')) {
    let submission;
    try {
      submission = parseWithZod(formData, { schema: BusinessHoursSchema });
    } catch {
      throw new Response('Unknown intent', { status: 400 });
    }
    return data(submission.reply(), { status: submission.status === 'error' ? 400 : 200 });
  }

  const intent = formData.get('intent');
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteBusinessHours({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Business Hours Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: BusinessHoursSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const input = businessHoursInput(submission.value);
  if (id === 'new') {
    await createBusinessHours({ ...who, ...input });
    return redirectWithToast(LIST, 'Business Hours Created');
  }
  if (!(await updateBusinessHours({ ...who, id, ...input }))) throw new Response('Not Found', { status: 404 });
  return redirectWithToast(LIST, { type: 'info', text: 'Business Hours Updated' });
}

export const handle = {
  breadcrumb: (loaderData: { hours: { name: string } | null } | undefined) => (loaderData ? (loaderData.hours?.name ?? 'Create Business Hours') : null),
};

export default function BusinessHoursPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <BusinessHoursEditor key={loaderData.hours?.id ?? 'new'} {...loaderData} />;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = FieldMetadata<any, any, any>;

function BusinessHoursEditor({ hours, defaults, timeZones, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `business-hours-${hours?.id ?? 'new'}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  // Without JavaScript both sections always show; with it they follow the two switches.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const [allDay, setAllDay] = useState(fields.allDay.initialValue === 'on');
  const [haveHolidays, setHaveHolidays] = useState(fields.haveHolidays.initialValue === 'on');
  const days = fields.days.getFieldList();
  const holidays = fields.holidays.getFieldList();

  return (
    <SettingsPage
      title={hours ? 'Edit Business Hours' : 'Create Business Hours'}
      subHeader="The days and hours your team works, in its time zone, and the holidays it is closed."
      learnMore="/help-center"
      locked={locked}
      actions={hours ? <DeleteConfirm id={`business-hours-${hours.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        {/* The first submit button answers the Enter key: saving, not adding a row. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden disabled={locked} />
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" maxLength={BUSINESS_HOURS_NAME_MAX} />
          <SelectField label="Timezone" field={fields.timezone} options={timeZones.map((z) => ({ value: z, label: z }))} placeholder="Select a timezone" />
          <SwitchField label="24x7 (open around the clock)" field={fields.allDay} onToggle={setAllDay} />

          <fieldset hidden={hydrated && allDay} data-testid="day-table" aria-describedby={fields.days.errorId}>
            <legend>Working days</legend>
            <table className="table">
              <thead>
                <tr>
                  <th>Day</th>
                  <th>Hours</th>
                </tr>
              </thead>
              <tbody>
                {WEEK_DAYS.map((dayName, d) => {
                  const day = days[d]?.getFieldset();
                  if (!day) return null;
                  const periods = day.periods.getFieldList();
                  const { key: openKey, ...openProps } = getInputProps(day.open as FieldMetadata<boolean>, { type: 'checkbox' });
                  return (
                    <tr key={dayName} data-testid={`day-${dayName}`}>
                      <td>
                        <label className="check">
                          <input key={openKey} {...openProps} aria-label={dayName} /> {dayName}
                        </label>
                      </td>
                      <td>
                        {periods.map((period, i) => {
                          const p = period.getFieldset();
                          return (
                            <div key={period.key ?? i} className="row" data-testid={`period-${dayName}-${i}`}>
                              <TimeInput field={p.startTime} label={`${dayName} period ${i + 1} start time`} />
                              <span aria-hidden> to </span>
                              <TimeInput field={p.endTime} label={`${dayName} period ${i + 1} end time`} />
                              {periods.length > 1 ? (
                                <button className="btn btn-link" aria-label={`Remove ${dayName} period ${i + 1}`} {...form.remove.getButtonProps({ name: day.periods.name, index: i })}>
                                  Remove
                                </button>
                              ) : null}
                              <ErrorList id={p.startTime.errorId} errors={p.startTime.errors} />
                              <ErrorList id={p.endTime.errorId} errors={p.endTime.errors} />
                            </div>
                          );
                        })}
                        <button
                          className="btn btn-link"
                          aria-label={`Add a period to ${dayName}`}
                          {...form.insert.getButtonProps({ name: day.periods.name, defaultValue: { startTime: DEFAULT_START_TIME, endTime: DEFAULT_END_TIME } })}
                        >
                          + Add a period
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <ErrorList id={fields.days.errorId} errors={fields.days.errors} />
          </fieldset>

          <SwitchField label="Holidays" field={fields.haveHolidays} onToggle={setHaveHolidays} />
          <fieldset hidden={hydrated && !haveHolidays} data-testid="holidays">
            <legend>Holidays</legend>
            <p className="muted">Closed the whole day, in the time zone above. Used only when holidays are on.</p>
            {holidays.map((holiday, i) => {
              const h = holiday.getFieldset();
              return (
                <div key={holiday.key ?? i} className="row" data-testid={`holiday-${i}`}>
                  <Field label={`Holiday Name`} field={h.name} maxLength={HOLIDAY_NAME_MAX} autoComplete="off" />
                  <Field label="Date" type="date" field={h.dateVal} />
                  <button className="btn btn-link" aria-label={`Remove holiday ${i + 1}`} {...form.remove.getButtonProps({ name: fields.holidays.name, index: i })}>
                    Remove
                  </button>
                </div>
              );
            })}
            <button className="btn" {...form.insert.getButtonProps({ name: fields.holidays.name, defaultValue: { name: '', dateVal: '' } })}>
              + Add a holiday
            </button>
          </fieldset>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={hours ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

function TimeInput({ field, label }: { field: AnyField; label: string }) {
  const { key, ...props } = getInputProps(field as FieldMetadata<string>, { type: 'time', ariaAttributes: true });
  return <input key={key} {...props} aria-label={label} />;
}

function SwitchField({ label, field, onToggle }: { label: string; field: AnyField; onToggle: (on: boolean) => void }) {
  const { key, ...props } = getInputProps(field as FieldMetadata<boolean>, { type: 'checkbox', ariaAttributes: true });
  return (
    <div className="field">
      <label className="check">
        <input key={key} {...props} onChange={(e) => onToggle(e.currentTarget.checked)} /> {label}
      </label>
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.hours?.name ?? 'Create Business Hours', 'Business Hours', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
