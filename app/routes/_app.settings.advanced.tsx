import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { MessengerInboxPicker } from '~/components/messenger/inbox-picker';
import { CheckboxField, ErrorList, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { sectionFormDefaults } from '~/models/channels/messenger-constants';
import { AdvancedSchema } from '~/models/channels/messenger-settings';
import { pickWebInbox, submitMessengerSection } from '~/models/channels/messenger-settings.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/advanced';

/** Messenger → Advanced: identity verification, allowed sites and attachments. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  const picked = await pickWebInbox({ accountId: ctx.account.id, requested: new URL(request.url).searchParams.get('inbox') });
  return {
    inboxes: picked.inboxes,
    inbox: picked.inbox ? { id: picked.inbox.id, name: picked.inbox.name } : null,
    defaults: picked.settings ? sectionFormDefaults({ ...picked.settings.advanced }) : null,
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, 'chatMessenger/enabled', ctx);
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const result = await submitMessengerSection({ accountId: ctx.account.id, actorId: ctx.user.id, formData, section: 'advanced', schema: AdvancedSchema });
  if (result.status === 'invalid') return data(result.reply, { status: 400 });
  if (result.status === 'missing') throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`${PATH}?inbox=${result.inboxId}`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: 'Advanced' };

export default function MessengerAdvanced() {
  const { inboxes, inbox, defaults, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage title="Advanced" subHeader="Security and files." learnMore="/help-center" locked={locked}>
      <MessengerInboxPicker inboxes={inboxes} current={inbox?.id ?? null} />
      {inbox && defaults ? <SectionForm key={inbox.id} inboxId={inbox.id} defaults={defaults} locked={locked} /> : null}
    </SettingsPage>
  );
}

function SectionForm({ inboxId, defaults, locked }: { inboxId: number; defaults: Record<string, string | undefined>; locked: boolean }) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `advanced-${inboxId}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="inboxId" value={inboxId} />
      <fieldset disabled={locked} className="stack">
        <CheckboxField label="Require identity verification (a data-user-id without a valid data-user-hash is refused)" field={fields.requireIdentity} />
        <TextareaField label="Allowed sites (host names, one per line; empty allows any site)" field={fields.allowedDomains} rows={4} maxLength={2000} />
        <CheckboxField label="Visitors may send files (images, PDF, text; 10 MB at most)" field={fields.attachments} />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <FormActions cancelTo={`${PATH}?inbox=${inboxId}`} submitLabel="Save" intent="save" locked={locked} />
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Advanced', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
