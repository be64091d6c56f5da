import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { MessengerInboxPicker } from '~/components/messenger/inbox-picker';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { sectionFormDefaults, BRAND_COLOUR_NAMES, FONT_SIZES, FONTS, POSITIONS } from '~/models/channels/messenger-constants';
import { AppearanceSchema } from '~/models/channels/messenger-settings';
import { pickWebInbox, submitMessengerSection } from '~/models/channels/messenger-settings.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/appearance';

/** Messenger → Appearance: brand colour, position, font and greeting of the widget. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  const picked = await pickWebInbox({ accountId: ctx.account.id, requested: new URL(request.url).searchParams.get('inbox') });
  return {
    inboxes: picked.inboxes,
    inbox: picked.inbox ? { id: picked.inbox.id, name: picked.inbox.name } : null,
    defaults: picked.settings ? sectionFormDefaults({ ...picked.settings.appearance }) : null,
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, 'chatMessenger/enabled', ctx);
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const result = await submitMessengerSection({ accountId: ctx.account.id, actorId: ctx.user.id, formData, section: 'appearance', schema: AppearanceSchema });
  if (result.status === 'invalid') return data(result.reply, { status: 400 });
  if (result.status === 'missing') throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`${PATH}?inbox=${result.inboxId}`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: 'Appearance' };

export default function MessengerAppearance() {
  const { inboxes, inbox, defaults, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage title="Appearance" subHeader="How the chat widget looks on your website." learnMore="/help-center" locked={locked}>
      <MessengerInboxPicker inboxes={inboxes} current={inbox?.id ?? null} />
      {inbox && defaults ? <SectionForm key={inbox.id} inboxId={inbox.id} defaults={defaults} locked={locked} /> : null}
    </SettingsPage>
  );
}

function SectionForm({ inboxId, defaults, locked }: { inboxId: number; defaults: Record<string, string | undefined>; locked: boolean }) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `appearance-${inboxId}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="inboxId" value={inboxId} />
      <fieldset disabled={locked} className="stack">
        <SelectField
          label="Brand colour"
          field={fields.brandColor}
          options={BRAND_COLOUR_NAMES.map((c) => ({ value: c, label: c[0].toUpperCase() + c.slice(1) }))}
        />
        <SelectField
          label="Position"
          field={fields.position}
          options={POSITIONS.map((p) => ({ value: p, label: p === 'right' ? 'Bottom right' : 'Bottom left' }))}
        />
        <SelectField label="Font" field={fields.font} options={FONTS.map((f) => ({ value: f, label: f }))} />
        <SelectField label="Font size" field={fields.fontSize} options={FONT_SIZES.map((s) => ({ value: s.value, label: `${s.label} (${s.value}px)` }))} />
        <Field label="Greeting" field={fields.greeting} maxLength={120} autoComplete="off" />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <FormActions cancelTo={`${PATH}?inbox=${inboxId}`} submitLabel="Save" intent="save" locked={locked} />
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Appearance', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
