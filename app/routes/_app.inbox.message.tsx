import type { z } from 'zod';
import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { InvalidReferenceError } from '~/models/inbox/conversations.server';
import { MESSAGE_MAX } from '~/models/inbox/form-constants';
import { StartMessageSchema } from '~/models/inbox/forms';
import { START_CHANNELS, type StartChannel } from '~/models/inbox/form-constants';
import { listInboxOptions } from '~/models/inbox/screens.server';
import {
  chatInboxesOf,
  findKnownContact,
  NO_CHAT_MESSAGE,
  NO_CONTACT_MESSAGE,
  NO_PHONE_MESSAGE,
  startChatConversation,
  startSmsConversation,
  UnreachableContactError,
} from '~/models/inbox/tickets.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LABELS: Record<StartChannel, string> = { sms: 'SMS', chat: 'Chat' };

/**
 * A new SMS or website chat with a known contact (ADR 035's outbound email, for the other channels): from the inbox,
 * or from a contact's page with `?contact=<id>`; `?channel=sms|chat` picks the channel. A contact the channel cannot
 * reach (no phone number, no widget session) is said plainly, and nothing is created.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'create_ticket');
  const url = new URL(request.url);
  const channel: StartChannel = url.searchParams.get('channel') === 'chat' ? 'chat' : 'sms';
  const contactId = parseRouteId(url.searchParams.get('contact') ?? undefined);
  const accountId = ctx.account.id;
  const [inboxes, contact] = await Promise.all([listInboxOptions({ accountId }), contactId ? findKnownContact({ accountId, id: contactId }) : Promise.resolve(undefined)]);
  if (contactId && !contact) throw new Response('Not Found', { status: 404 });
  // For a known contact, the chats offered are those they have a widget session on.
  const chats = contact ? new Set((await chatInboxesOf({ accountId, contactId: contact.id })).map((i) => i.id)) : null;
  const options = inboxes
    .filter((i) => (channel === 'sms' ? i.channelType === 'sms' : i.channelType === 'web' && (!chats || chats.has(i.id))))
    .map((i) => ({ value: String(i.id), label: i.name }));
  const unreachable = contact ? (channel === 'sms' ? (contact.phone?.trim() ? null : NO_PHONE_MESSAGE) : chats!.size === 0 ? NO_CHAT_MESSAGE : null) : null;
  return {
    channel,
    inboxes: options,
    hasAnyInbox: inboxes.some((i) => i.channelType === (channel === 'sms' ? 'sms' : 'web')),
    contact: contact
      ? { id: contact.id, name: [contact.firstName, contact.lastName].filter(Boolean).join(' ') || contact.email || contact.phone || `Contact ${contact.id}`, phone: contact.phone }
      : null,
    unreachable,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'create_ticket');
  const formData = await request.formData();
  if (formData.get('intent') !== 'send') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: StartMessageSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const v = submission.value;
  const accountId = ctx.account.id;
  const contact = await findKnownContact({ accountId, id: v.contactId, key: v.contactId ? null : v.contactKey });
  if (!contact) return data(submission.reply({ fieldErrors: { [v.contactId ? 'contactId' : 'contactKey']: [NO_CONTACT_MESSAGE] } }), { status: 400 });
  const input = { accountId, actorId: ctx.user.id, inboxId: v.inboxId, contactId: contact.id, message: v.message };
  try {
    const { conversation } = v.channel === 'sms' ? await startSmsConversation(input) : await startChatConversation(input);
    return redirectWithToast(`/inbox/${conversation.id}`, 'Message Sent');
  } catch (err) {
    if (err instanceof UnreachableContactError) return data(submission.reply({ formErrors: [err.message] }), { status: 400 });
    if (err instanceof InvalidReferenceError) return data(submission.reply({ fieldErrors: { inboxId: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = { breadcrumb: 'New SMS or chat' };

export default function StartMessage() {
  const { channel, inboxes, hasAnyInbox, contact, unreachable } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<z.input<typeof StartMessageSchema>>({
    id: `start-${channel}`,
    lastResult,
    defaultValue: { inboxId: inboxes.length === 1 ? inboxes[0].value : '' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const keep = contact ? `&contact=${contact.id}` : '';
  return (
    <div className="page stack">
      <h1>New {channel === 'sms' ? 'SMS' : 'chat'}</h1>
      <nav className="row" aria-label="Channel">
        {START_CHANNELS.map((c) => (
          <Link key={c} to={`?channel=${c}${keep}`} className={c === channel ? 'btn btn-primary' : 'btn'} aria-current={c === channel ? 'page' : undefined}>
            {LABELS[c]}
          </Link>
        ))}
      </nav>
      <p className="muted">
        {channel === 'sms'
          ? 'Text a contact first: the SMS leaves from the inbox’s number to the contact’s phone, and their answer comes back into this conversation.'
          : 'Write to a contact in the website chat they used: the message appears in their chat window at once if it is open, or the next time they open it.'}
      </p>
      {!hasAnyInbox ? (
        <p className="form-error" data-testid="no-inbox">
          {channel === 'sms' ? (
            <>
              There is no SMS inbox yet. <Link to="/settings/sms">Create an SMS inbox</Link> first.
            </>
          ) : (
            <>
              There is no website chat yet. <Link to="/settings/chat-messenger">Set up a website chat</Link> first.
            </>
          )}
        </p>
      ) : null}
      {unreachable ? (
        <p className="form-error" role="alert" data-testid="unreachable">
          {unreachable}
        </p>
      ) : null}
      <div className="card">
        <Form method="post" {...getFormProps(form)}>
          <input type="hidden" name="channel" value={channel} />
          {contact ? (
            <p>
              To: <Link to={`/customers/${contact.id}`}>{contact.name}</Link>
              {channel === 'sms' && contact.phone ? <span className="muted"> ({contact.phone})</span> : null}
              <input type="hidden" name="contactId" value={contact.id} />
            </p>
          ) : (
            <Field label="To (the contact’s email address or phone number)" field={fields.contactKey} autoComplete="off" />
          )}
          <ErrorList errors={fields.contactId.errors} />
          <SelectField label={channel === 'sms' ? 'From SMS inbox' : 'Website chat'} field={fields.inboxId} options={inboxes} placeholder={channel === 'sms' ? 'Choose an SMS inbox' : 'Choose a website chat'} />
          <TextareaField label="Message" field={fields.message} rows={6} maxLength={MESSAGE_MAX} />
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="row">
            <Link to={contact ? `/customers/${contact.id}` : '/inbox'} className="btn">
              Cancel
            </Link>
            <button type="submit" className="btn btn-primary" name="intent" value="send" disabled={Boolean(unreachable)}>
              {channel === 'sms' ? 'Send SMS' : 'Send chat message'}
            </button>
          </div>
        </Form>
      </div>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('New SMS or chat', 'Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
