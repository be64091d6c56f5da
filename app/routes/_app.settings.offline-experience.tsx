import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { MessengerInboxPicker } from '~/components/messenger/inbox-picker';
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { sectionFormDefaults } from '~/models/channels/messenger-constants';
import { OfflineSchema } from '~/models/channels/messenger-settings';
import { pickWebInbox, submitMessengerSection } from '~/models/channels/messenger-settings.server';
import { listBusinessHours } from '~/models/automation/business-hours.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/offline-experience';

/** Messenger → Offline Experience: outside business hours, or with no agent online, the widget shows a ticket form. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/offlineExperience', await requireUser(request));
  const picked = await pickWebInbox({ accountId: ctx.account.id, requested: new URL(request.url).searchParams.get('inbox') });
  const hours = await listBusinessHours({ accountId: ctx.account.id, pageSize: 500 });
  return {
    inboxes: picked.inboxes,
    inbox: picked.inbox ? { id: picked.inbox.id, name: picked.inbox.name } : null,
    defaults: picked.settings ? sectionFormDefaults({ ...picked.settings.offline, businessHoursId: picked.inbox?.businessHoursId ?? undefined }) : null,
    businessHours: hours.rows.map((h) => ({ value: String(h.id), label: h.name })),
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, 'chatMessenger/offlineExperience', ctx);
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const result = await submitMessengerSection({ accountId: ctx.account.id, actorId: ctx.user.id, formData, section: 'offline', schema: OfflineSchema });
  if (result.status === 'invalid') return data(result.reply, { status: 400 });
  if (result.status === 'missing') throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`${PATH}?inbox=${result.inboxId}`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: 'Offline Experience' };

export default function MessengerOfflineExperience() {
  const { inboxes, inbox, defaults, locked, businessHours } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Offline Experience"
      subHeader="Outside business hours or when no agent is online, visitors leave a message that becomes a ticket."
      learnMore="/help-center"
      locked={locked}
    >
      <MessengerInboxPicker inboxes={inboxes} current={inbox?.id ?? null} />
      {inbox && defaults ? <SectionForm key={inbox.id} inboxId={inbox.id} defaults={defaults} locked={locked} businessHours={businessHours} /> : null}
    </SettingsPage>
  );
}

function SectionForm({
  inboxId,
  defaults,
  locked,
  businessHours,
}: {
  inboxId: number;
  defaults: Record<string, string | undefined>;
  locked: boolean;
  businessHours: { value: string; label: string }[];
}) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `offline-experience-${inboxId}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="inboxId" value={inboxId} />
      <fieldset disabled={locked} className="stack">
        <TextareaField label="Offline message" field={fields.offlineMessage} maxLength={300} />
        <SelectField label="Business hours" field={fields.businessHoursId} options={businessHours} placeholder="Around the clock" />
        <fieldset className="stack">
          <legend>Ticket form fields</legend>
          <CheckboxField label="Email" field={fields.isEmail} />
          <CheckboxField label="Name" field={fields.isName} />
          <CheckboxField label="Phone number" field={fields.isNumber} />
          <CheckboxField label="Subject" field={fields.isSubject} />
          <CheckboxField label="Message" field={fields.isMessage} />
          <CheckboxField label="Attachment" field={fields.isAttachment} />
          <CheckboxField label="Captcha" field={fields.isCaptcha} />
        </fieldset>
        <Field label="Ticket heading" field={fields.ticketHeading} maxLength={60} autoComplete="off" />
        <Field label="Submit button" field={fields.submitButton} maxLength={20} autoComplete="off" />
        <TextareaField label="Submit message" field={fields.submitMessage} maxLength={200} />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <FormActions cancelTo={`${PATH}?inbox=${inboxId}`} submitLabel="Save" intent="save" locked={locked} />
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Offline Experience', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
