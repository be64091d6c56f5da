import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { listAccountUsers } from '~/models/crm/contacts.server';
import { BOOKING_WINDOWS, BUFFER_OPTIONS, bookingWindowLabel, DISABLED_SLOT_LENGTHS, minutesLabel, REMINDER_OPTIONS, SLOT_LENGTHS, WEEKDAY_CHOICES, WEEKDAY_LABELS } from '~/models/meetings/constants';
import { createMeetingType, deleteMeetingType, getMeetingType, updateMeetingType } from '~/models/meetings/meetings.server';
import { MeetingTypeSchema } from '~/models/meetings/schemas';
import { FieldInputError } from '~/models/productivity/shared.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/meetings';

function readParam(param: string | undefined): 'create' | number {
  if (param === 'create') return 'create';
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const id = readParam(params.meetingId);
  const locked = !can(ctx, 'manage_messenger_customization');
  // meetings/create without the permission falls back to the meetings list (section 2).
  if (id === 'create' && locked) throw redirect(LIST);
  const meeting = id === 'create' ? null : await getMeetingType({ accountId: ctx.account.id, id });
  if (meeting === undefined) throw new Response('Not Found', { status: 404 });
  const users = await listAccountUsers({ accountId: ctx.account.id });
  return {
    meeting: meeting
      ? {
          id: meeting.id,
          slug: meeting.slug,
          name: meeting.name,
          description: meeting.description,
          slotMinutes: String(meeting.slotMinutes),
          weekdays: meeting.weekdays,
          dayStart: meeting.dayStart,
          dayEnd: meeting.dayEnd,
          timezone: meeting.timezone,
          bookingWindowWeeks: String(meeting.bookingWindowWeeks),
          bufferMinutes: String(meeting.bufferMinutes),
          reminderMinutes: meeting.reminderMinutes.map(String),
          hostIds: meeting.hosts.map((h) => String(h.id)),
          location: meeting.location,
          videoLink: meeting.videoLink,
        }
      : null,
    defaultTimezone: ctx.account.settings.defaultTimezone ?? ctx.user.timezone ?? 'UTC',
    me: String(ctx.user.id),
    users: users.map((u) => ({ value: String(u.id), label: `${u.firstName} ${u.lastName}`.trim() || u.email })),
    timeZones: timeZoneNames(),
    locked,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const id = readParam(params.meetingId);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete' && id !== 'create') {
    if (!(await deleteMeetingType({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Meeting Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: MeetingTypeSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    if (id === 'create') {
      await createMeetingType({ ...who, input: submission.value });
      return redirectWithToast(LIST, 'Meeting Created');
    }
    if (!(await updateMeetingType({ ...who, id, input: submission.value }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Meeting Updated' });
  } catch (err) {
    if (err instanceof FieldInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (d: { meeting: { name: string } | null } | undefined) => (d ? (d.meeting?.name ?? 'Create Meeting') : null),
};

export default function MeetingTypePage() {
  const d = useLoaderData<typeof loader>();
  return <MeetingEditor key={d.meeting?.id ?? 'create'} {...d} />;
}

const slotOptions = SLOT_LENGTHS.filter((m) => !DISABLED_SLOT_LENGTHS.includes(m)).map((m) => ({ value: String(m), label: minutesLabel(m) }));
const weekdayOptions = WEEKDAY_CHOICES.map((w) => ({ value: w, label: WEEKDAY_LABELS[w] }));
const windowOptions = BOOKING_WINDOWS.map((w) => ({ value: String(w), label: bookingWindowLabel(w) }));
const bufferOptions = BUFFER_OPTIONS.map((m) => ({ value: String(m), label: minutesLabel(m) }));

function MeetingEditor({ meeting, users, timeZones, locked, defaultTimezone, me }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `meeting-${meeting?.id ?? 'create'}`,
    lastResult,
    defaultValue: meeting ?? { slotMinutes: '30', weekdays: 'mon-fri', dayStart: '09:00', dayEnd: '17:00', timezone: defaultTimezone, bookingWindowWeeks: '2', bufferMinutes: '0', reminderMinutes: ['60'], hostIds: [me] },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const chosenReminders = new Set((fields.reminderMinutes.value as string[] | undefined) ?? meeting?.reminderMinutes ?? []);
  const chosenHosts = new Set((fields.hostIds.value as string[] | undefined) ?? meeting?.hostIds ?? []);
  return (
    <SettingsPage
      title={meeting ? 'Edit Meeting' : 'Create Meeting'}
      subHeader={meeting ? <a href={`/meet/${meeting.slug}`}>Booking page: /meet/{meeting.slug}</a> : 'Customers book this meeting on its own page, in their time zone.'}
      learnMore="/help-center"
      locked={locked}
      actions={meeting ? <DeleteConfirm id={`meeting-${meeting.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Meeting Name" field={fields.name} autoComplete="off" />
          <TextareaField label="Description" field={fields.description} maxLength={1000} />
          <SelectField label="Slot length" field={fields.slotMinutes} options={slotOptions} />
          <SelectField label="Days" field={fields.weekdays} options={weekdayOptions} />
          <div className="row">
            <Field label="From" type="time" field={fields.dayStart} />
            <Field label="To" type="time" field={fields.dayEnd} />
          </div>
          <SelectField label="Time zone of these hours" field={fields.timezone} options={timeZones.map((z) => ({ value: z, label: z }))} />
          <SelectField label="Booking window" field={fields.bookingWindowWeeks} options={windowOptions} />
          <SelectField label="Buffer between meetings" field={fields.bufferMinutes} options={bufferOptions} />
          <fieldset className="field">
            <legend>Reminders before the meeting</legend>
            <div className="row wrap">
              {REMINDER_OPTIONS.map((m) => (
                <label key={m} className="check">
                  <input type="checkbox" name={fields.reminderMinutes.name} value={String(m)} defaultChecked={chosenReminders.has(String(m))} /> {minutesLabel(m)}
                </label>
              ))}
            </div>
            <ErrorList id={fields.reminderMinutes.errorId} errors={fields.reminderMinutes.errors} />
          </fieldset>
          <fieldset className="field">
            <legend>Hosts</legend>
            <div className="row wrap">
              {users.map((u) => (
                <label key={u.value} className="check">
                  <input type="checkbox" name={fields.hostIds.name} value={u.value} defaultChecked={chosenHosts.has(u.value)} /> {u.label}
                </label>
              ))}
            </div>
            <ErrorList id={fields.hostIds.errorId} errors={fields.hostIds.errors} />
          </fieldset>
          <Field label="Location" field={fields.location} placeholder="Our office, 1 Main Street" />
          <Field label="Video link" type="url" field={fields.videoLink} placeholder="https://meet.example.com/team" />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={meeting ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d?.meeting?.name ?? 'Create Meeting', 'Meetings', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
