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
import { ConfigureSchema } from '~/models/channels/messenger-settings';
import { pickWebInbox, submitMessengerSection } from '~/models/channels/messenger-settings.server';
import { listKnowledgeBases } from '~/models/knowledge-base/knowledge-bases.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/configure';

/** Messenger → Configure: the team name and welcome message, the launcher and page-view tracking. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  const [picked, knowledgeBases] = await Promise.all([
    pickWebInbox({ accountId: ctx.account.id, requested: new URL(request.url).searchParams.get('inbox') }),
    listKnowledgeBases({ accountId: ctx.account.id }),
  ]);
  return {
    knowledgeBases: knowledgeBases.map((k) => ({ value: String(k.id), label: k.name })),
    inboxes: picked.inboxes,
    inbox: picked.inbox ? { id: picked.inbox.id, name: picked.inbox.name } : null,
    defaults: picked.settings ? sectionFormDefaults({ ...picked.settings.configure }) : null,
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, 'chatMessenger/enabled', ctx);
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const result = await submitMessengerSection({ accountId: ctx.account.id, actorId: ctx.user.id, formData, section: 'configure', schema: ConfigureSchema });
  if (result.status === 'invalid') return data(result.reply, { status: 400 });
  if (result.status === 'missing') throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`${PATH}?inbox=${result.inboxId}`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: 'Configure' };

export default function MessengerConfigure() {
  const { inboxes, inbox, defaults, locked, knowledgeBases } = useLoaderData<typeof loader>();
  return (
    <SettingsPage title="Configure" subHeader="What the widget says and what it reports." learnMore="/help-center" locked={locked}>
      <MessengerInboxPicker inboxes={inboxes} current={inbox?.id ?? null} />
      {inbox && defaults ? <SectionForm key={inbox.id} inboxId={inbox.id} defaults={defaults} locked={locked} knowledgeBases={knowledgeBases} /> : null}
    </SettingsPage>
  );
}

function SectionForm({
  inboxId,
  defaults,
  locked,
  knowledgeBases,
}: {
  inboxId: number;
  defaults: Record<string, string | undefined>;
  locked: boolean;
  knowledgeBases: { value: string; label: string }[];
}) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `configure-${inboxId}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="inboxId" value={inboxId} />
      <fieldset disabled={locked} className="stack">
        <Field label="Team name" field={fields.teamName} maxLength={40} autoComplete="off" />
        <TextareaField label="Welcome message" field={fields.welcomeMessage} maxLength={300} />
        <CheckboxField label="Show the launcher button (otherwise open the chat with window.Parley.open())" field={fields.showLauncher} />
        <CheckboxField label="Report page views (live view, page-URL automations)" field={fields.trackPageViews} />
        <SelectField label="Help-centre search before a chat starts" field={fields.helpCentreId} options={knowledgeBases} placeholder="No search" />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <FormActions cancelTo={`${PATH}?inbox=${inboxId}`} submitLabel="Save" intent="save" locked={locked} />
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Configure', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
