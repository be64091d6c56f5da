import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { getContact } from '~/models/crm/contacts.server';
import { eraseContact, erasureModeOf } from '~/models/crm/erasure.server';
import { EraseContactSchema } from '~/models/operations/schemas';
import { ERASE_CONFIRMATION_WORD } from '~/models/operations/constants';
import { parseWithZod } from '~/utils/conform.server';
import { countLabel, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, requireOrgAdmin, roleDenied, type AppContext } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Erasure is stricter than deleting a contact (ADR 153): an owner or admin whose role manages contacts. */
async function requireEraser(request: Request): Promise<AppContext> {
  const ctx = await requireOrgAdmin(request);
  if (!can(ctx, 'manage_contacts')) await roleDenied(request);
  return ctx;
}

async function findContact(ctx: AppContext, param: string | undefined) {
  const id = parseRouteId(param);
  const contact = id === null ? undefined : await getContact({ accountId: ctx.account.id, id });
  if (!contact) throw new Response('Not Found', { status: 404 });
  return contact;
}

/** "Erase personal data" (GDPR art. 17): a page of its own with a typed confirmation, reached from the contact's page. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireEraser(request);
  const contact = await findContact(ctx, params.id);
  const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ') || contact.email || contact.phone || `Contact ${contact.id}`;
  return { contact: { id: contact.id, name }, mode: erasureModeOf(ctx.account.settings), canChangeSetting: ctx.role.kind === 'owner' };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireEraser(request);
  const contact = await findContact(ctx, params.id);
  const formData = await request.formData();
  if (formData.get('intent') !== 'erase') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: EraseContactSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const result = await eraseContact({ accountId: ctx.account.id, contactId: contact.id, actorId: ctx.user.id });
  if (!result) throw new Response('Not Found', { status: 404 });
  const c = result.counts;
  const kept = result.mode === 'anonymise' ? `${countLabel(c.conversationsAnonymised, 'conversation')} kept anonymised` : `${countLabel(c.conversationsDeleted, 'conversation')} deleted`;
  return redirectWithToast('/customers', {
    type: 'success',
    text: `Personal data erased: ${countLabel(c.messages, 'message')}, ${countLabel(c.files, 'file')}, ${countLabel(c.notes, 'note')}, ${countLabel(c.surveyResponses + c.csatRatings, 'survey answer')}, ${countLabel(c.formResponses, 'form entry', 'form entries')} removed; ${kept}.`,
  });
}

export const handle = { breadcrumb: 'Erase personal data' };

export default function EraseContact() {
  const { contact, mode, canChangeSetting } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ lastResult, shouldValidate: 'onSubmit' });
  return (
    <div className="page stack">
      <h1>Erase personal data of {contact.name}</h1>
      <section className="card stack">
        <p>This cannot be undone. It removes, for good:</p>
        <ul>
          <li>the contact, their tags, notes and identities;</li>
          <li>every message they wrote, with its attached files;</li>
          <li>their survey and CSAT answers, form entries (with uploaded files) and meeting bookings;</li>
          <li>the details earlier audit-log entries held about them (the entries keep only what happened and when).</li>
        </ul>
        <p data-testid="erase-mode">
          {mode === 'anonymise'
            ? 'Their conversations are kept, anonymised: the agents’ replies and notes stay, with no name, address or subject of theirs.'
            : 'Their conversations are deleted, with every message in them.'}{' '}
          {canChangeSetting ? <Link to="/settings/data-export">Change this setting</Link> : 'The account owner chooses this in Settings › Data Export.'}
        </p>
        <Form method="post" {...getFormProps(form)} className="stack">
          <Field label={`Type ${ERASE_CONFIRMATION_WORD} to confirm`} field={fields.confirm} autoComplete="off" />
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="row">
            <button type="submit" className="btn btn-danger" name="intent" value="erase">
              Erase personal data
            </button>
            <Link to={`/customers/${contact.id}`} className="btn">
              Cancel
            </Link>
          </div>
        </Form>
      </section>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Erase personal data', 'Customers') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
