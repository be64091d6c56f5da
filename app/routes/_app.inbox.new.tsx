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
import { TicketSchema } from '~/models/inbox/forms';
import { listInboxOptions } from '~/models/inbox/screens.server';
import { openInternalTicket } from '~/models/inbox/tickets.server';
import { pageTitle } from '~/utils/format';
import { requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'create_ticket');
  const inboxes = await listInboxOptions({ accountId: ctx.account.id });
  return { inboxes: inboxes.map((i) => ({ value: String(i.id), label: i.name })) };
}

/** POST conversation/ticket: a conversation opened by an agent on behalf of a contact. */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'create_ticket');
  const formData = await request.formData();
  if (formData.get('intent') !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: TicketSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const v = submission.value;
  try {
    const { conversation } = await openInternalTicket({
      accountId: ctx.account.id,
      actorId: ctx.user.id,
      inboxId: v.inboxId,
      contact: { email: v.email, name: v.name },
      subject: v.subject,
      message: v.message,
    });
    return redirectWithToast(`/inbox/${conversation.id}`, 'Ticket Created');
  } catch (err) {
    // The inbox chosen is not one of the account's.
    if (err instanceof InvalidReferenceError) return data(submission.reply({ fieldErrors: { inboxId: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = { breadcrumb: 'New Ticket' };

export default function NewTicket() {
  const { inboxes } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<z.input<typeof TicketSchema>>({
    id: 'ticket',
    lastResult,
    defaultValue: inboxes.length === 1 ? { inboxId: inboxes[0].value } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <div className="page stack">
      <h1>New ticket</h1>
      <p className="muted">Open a conversation on behalf of a contact: what they asked, in their words.</p>
      {inboxes.length === 0 ? (
        <p className="form-error">
          There is no inbox yet. <Link to="/settings/emails">Create an inbox</Link> first.
        </p>
      ) : null}
      <div className="card">
        <Form method="post" {...getFormProps(form)}>
          <SelectField label="Inbox" field={fields.inboxId} options={inboxes} placeholder="Choose an inbox" />
          <div className="row">
            <Field label="Contact email" field={fields.email} type="email" autoComplete="off" />
            <Field label="Contact name" field={fields.name} autoComplete="off" />
          </div>
          <Field label="Subject" field={fields.subject} autoComplete="off" />
          <TextareaField label="Message" field={fields.message} rows={6} maxLength={MESSAGE_MAX} />
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="row">
            <Link to="/inbox" className="btn">
              Cancel
            </Link>
            <button type="submit" className="btn btn-primary" name="intent" value="create">
              Create ticket
            </button>
          </div>
        </Form>
      </div>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('New Ticket', 'Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
