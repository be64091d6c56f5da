import type { z } from 'zod';
import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { getContact } from '~/models/crm/contacts.server';
import { InvalidReferenceError } from '~/models/inbox/conversations.server';
import { MESSAGE_MAX } from '~/models/inbox/form-constants';
import { TicketSchema } from '~/models/inbox/forms';
import { listInboxOptions } from '~/models/inbox/screens.server';
import { startEmailConversation } from '~/models/inbox/tickets.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** A new outbound email conversation (ADR 035): from the inbox, or from a contact's page with `?contact=<id>`. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'create_ticket');
  const contactId = parseRouteId(new URL(request.url).searchParams.get('contact') ?? undefined);
  const [inboxes, contact] = await Promise.all([
    listInboxOptions({ accountId: ctx.account.id }),
    contactId ? getContact({ accountId: ctx.account.id, id: contactId }) : Promise.resolve(undefined),
  ]);
  return {
    inboxes: inboxes.filter((i) => i.channelType === 'email').map((i) => ({ value: String(i.id), label: i.name })),
    contact: contact ? { email: contact.email ?? '', name: [contact.firstName, contact.lastName].filter(Boolean).join(' ') } : null,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'create_ticket');
  const formData = await request.formData();
  if (formData.get('intent') !== 'send') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: TicketSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const v = submission.value;
  try {
    const { conversation } = await startEmailConversation({
      accountId: ctx.account.id,
      actorId: ctx.user.id,
      inboxId: v.inboxId,
      contact: { email: v.email, name: v.name },
      subject: v.subject,
      message: v.message,
    });
    return redirectWithToast(`/inbox/${conversation.id}`, 'Email Sent');
  } catch (err) {
    if (err instanceof InvalidReferenceError) return data(submission.reply({ fieldErrors: { inboxId: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = { breadcrumb: 'New Email' };

export default function ComposeEmail() {
  const { inboxes, contact } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<z.input<typeof TicketSchema>>({
    id: 'compose',
    lastResult,
    defaultValue: { inboxId: inboxes.length === 1 ? inboxes[0].value : '', email: contact?.email ?? '', name: contact?.name ?? '' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <div className="page stack">
      <h1>New email</h1>
      <p className="muted">Write to a contact first: the email leaves from the inbox you choose, and their answer comes back into this conversation.</p>
      {inboxes.length === 0 ? (
        <p className="form-error">
          There is no email inbox yet. <Link to="/settings/emails">Create an email inbox</Link> first.
        </p>
      ) : null}
      <div className="card">
        <Form method="post" {...getFormProps(form)}>
          <SelectField label="From inbox" field={fields.inboxId} options={inboxes} placeholder="Choose an email inbox" />
          <div className="row">
            <Field label="To (email)" field={fields.email} type="email" autoComplete="off" />
            <Field label="Contact name" field={fields.name} autoComplete="off" />
          </div>
          <Field label="Subject" field={fields.subject} autoComplete="off" />
          <TextareaField label="Message" field={fields.message} rows={8} maxLength={MESSAGE_MAX} />
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="row">
            <Link to="/inbox" className="btn">
              Cancel
            </Link>
            <button type="submit" className="btn btn-primary" name="intent" value="send">
              Send email
            </button>
          </div>
        </Form>
      </div>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('New Email', 'Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
