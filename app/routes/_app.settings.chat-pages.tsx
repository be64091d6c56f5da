import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { MessengerInboxPicker } from '~/components/messenger/inbox-picker';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { sectionFormDefaults } from '~/models/channels/messenger-constants';
import { ChatPageSchema } from '~/models/channels/messenger-settings';
import { pickWebInbox, submitMessengerSection } from '~/models/channels/messenger-settings.server';
import { accountUrl } from '~/utils/tenant.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/chat-pages';

/** Channels → Chat Pages: a hosted chat page per messenger inbox, usable without JavaScript. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'channels/chatPages', await requireUser(request));
  const picked = await pickWebInbox({ accountId: ctx.account.id, requested: new URL(request.url).searchParams.get('inbox') });
  return {
    inboxes: picked.inboxes,
    inbox: picked.inbox ? { id: picked.inbox.id, name: picked.inbox.name } : null,
    defaults: picked.settings ? sectionFormDefaults({ ...picked.settings.chatPage }) : null,
    pageUrl: picked.settings?.chatPage.code ? accountUrl(request, ctx.account.domain, `/public/chat/${picked.settings.chatPage.code}`) : null,
    locked: !can(ctx, 'manage_chat_messenger_and_pages'),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_chat_messenger_and_pages');
  await requireFeature(request, 'channels/chatPages', ctx);
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const result = await submitMessengerSection({ accountId: ctx.account.id, actorId: ctx.user.id, formData, section: 'chatPage', schema: ChatPageSchema });
  if (result.status === 'invalid') return data(result.reply, { status: 400 });
  if (result.status === 'missing') throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`${PATH}?inbox=${result.inboxId}`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: 'Chat Pages' };

export default function ChatPagesSettings() {
  const { inboxes, inbox, defaults, locked, pageUrl } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Chat Pages"
      subHeader="A page of its own where visitors chat with you, for devices where the widget cannot run."
      learnMore="/help-center"
      locked={locked}
    >
      <MessengerInboxPicker inboxes={inboxes} current={inbox?.id ?? null} />
      {inbox && defaults ? <SectionForm key={inbox.id} inboxId={inbox.id} defaults={defaults} locked={locked} pageUrl={pageUrl} /> : null}
    </SettingsPage>
  );
}

function SectionForm({
  inboxId,
  defaults,
  locked,
  pageUrl,
}: {
  inboxId: number;
  defaults: Record<string, string | undefined>;
  locked: boolean;
  pageUrl: string | null;
}) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `chat-pages-${inboxId}`,
    lastResult,
    defaultValue: defaults,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="inboxId" value={inboxId} />
      <fieldset disabled={locked} className="stack">
        <CheckboxField label="Chat page on" field={fields.enabled} />
        {pageUrl ? (
          <p>
            Public address:{' '}
            <a href={pageUrl} data-testid="chat-page-url">
              {pageUrl}
            </a>
          </p>
        ) : null}
        <Field label="Heading" field={fields.heading} maxLength={60} autoComplete="off" />
        <Field label="Sub-heading" field={fields.subHeading} maxLength={200} autoComplete="off" />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <FormActions cancelTo={`${PATH}?inbox=${inboxId}`} submitLabel="Save" intent="save" locked={locked} />
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Chat Pages', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
