import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { TagPills } from '~/components/crm/tag-pills';
import { useCrmTagOptions } from '~/components/crm/use-crm-tag-options';
import { NotesSection } from '~/components/crm/notes-section';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { COUNTRY_SELECT_OPTIONS } from '~/models/crm/countries';
import { ContactEditSchema, NoteSchema } from '~/models/crm/contacts.schemas';
import { deleteContacts, getContact, listAccountUsers, setContactFavourite, updateContact } from '~/models/crm/contacts.server';
import { addNote } from '~/models/crm/notes.server';
import { FieldInputError } from '~/models/productivity/shared.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDateTime, pageTitle } from '~/utils/format';
import { formatHoursMinutes } from '~/utils/duration';
import { formatPhone } from '~/utils/phone-format';
import { readEditorParam } from '~/utils/route-id';
import { can, publicUser, requirePermission, requireUser } from '~/utils/session.server';
import { timeTotals } from '~/models/time-tracking/time-entries.server';
import { integrationPanelsHtml } from '~/models/integrations/panels.server';
import { redirectWithToast } from '~/utils/toast.server';
import { Star } from 'lucide-react';

function readId(param: string | undefined) {
  const id = readEditorParam(param);
  if (id === 'new') throw new Response('Not Found', { status: 404 });
  return id;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readId(params.id);
  const contact = await getContact({ accountId: ctx.account.id, id });
  if (!contact) throw new Response('Not Found', { status: 404 });
  const [users, time, integrations] = await Promise.all([
    listAccountUsers({ accountId: ctx.account.id }),
    timeTotals({ accountId: ctx.account.id, contactId: contact.id }),
    integrationPanelsHtml(ctx, { email: contact.email }),
  ]);
  return {
    contact,
    time,
    integrations,
    // Formatted here: libphonenumber's tables stay on the server (ADR 027).
    phone: formatPhone(contact.phone),
    userOptions: users.map((u) => ({ value: String(u.id), label: `${u.firstName} ${u.lastName}`.trim() || u.email })),
    locked: !can(ctx, 'manage_contacts'),
    // Erasure (ADR 153) is stricter than deleting: owners and admins who manage contacts.
    canErase: can(ctx, 'manage_contacts') && ctx.isOrgAdmin,
    user: publicUser(ctx),
  };
}

/** Intents: save (the second contact form), note, favourite, delete. */
export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  const id = readId(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  const self = `/customers/${id}`;

  if (intent === 'delete') {
    if (!(await deleteContacts({ ...who, ids: [id] }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/customers', { type: 'info', text: 'Deleted' });
  }
  if (intent === 'favourite') {
    if (!(await setContactFavourite({ ...who, id, isFavourite: formData.get('value') === 'true' }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(self, { type: 'info', text: 'Contact Updated' });
  }
  if (intent === 'note') {
    const submission = parseWithZod(formData, { schema: NoteSchema });
    if (submission.status !== 'success') return data({ form: 'note' as const, reply: submission.reply() }, { status: 400 });
    if (!(await addNote({ ...who, target: { contactId: id }, body: submission.value.body }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(self, 'Note Added');
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: ContactEditSchema });
  if (submission.status !== 'success') return data({ form: 'contact' as const, reply: submission.reply() }, { status: 400 });
  const v = submission.value;
  try {
    const row = await updateContact({
      ...who,
      id,
      input: {
        ...v,
        address: { country: v.country, locality: v.locality, streetAddress: v.streetAddress, postalCode: v.postalCode },
      },
    });
    if (!row) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(self, { type: 'info', text: 'Contact Updated' });
  } catch (err) {
    if (err instanceof FieldInputError) return data({ form: 'contact' as const, reply: submission.reply({ fieldErrors: { [err.field]: [err.message] } }) }, { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { contact: { firstName: string; lastName: string; email: string | null } } | undefined) =>
    loaderData ? `${loaderData.contact.firstName} ${loaderData.contact.lastName}`.trim() || loaderData.contact.email : null,
};

export default function ContactPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <ContactDetail key={loaderData.contact.id} {...loaderData} />;
}

function ContactDetail({ contact, time, integrations, phone, userOptions, locked, canErase, user }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const tagOptions = useCrmTagOptions();
  const actionData = useActionData<typeof action>();
  const name = `${contact.firstName} ${contact.lastName}`.trim() || contact.email || `#${contact.id}`;
  const [form, fields] = useForm({
    id: `contact-${contact.id}`,
    lastResult: actionData?.form === 'contact' ? actionData.reply : undefined,
    defaultValue: {
      firstName: contact.firstName,
      lastName: contact.lastName,
      email: contact.email ?? '',
      phone,
      title: contact.title ?? '',
      website: contact.website ?? '',
      companyName: contact.company?.name ?? '',
      assigneeId: contact.assigneeId ? String(contact.assigneeId) : '',
      country: contact.address.country ?? '',
      locality: contact.address.locality ?? '',
      streetAddress: contact.address.streetAddress ?? '',
      postalCode: contact.address.postalCode ?? '',
      tagIds: contact.tags.map((t) => String(t.id)),
    },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const chosenTags = new Set([fields.tagIds.initialValue ?? []].flat().map(String));
  return (
    <SettingsPage
      title={
        <>
          {name} {contact.isFavourite ? <Star role="img" aria-label="Favourite" size={18} fill="currentColor" /> : null}
        </>
      }
      subHeader={contact.company ? <Link to={`/customers/companies/${contact.company.id}`}>{contact.company.name}</Link> : contact.email}
      locked={locked}
      actions={
        <div className="row">
          {contact.email ? (
            <Link to={`/inbox/compose?contact=${contact.id}`} className="btn">
              Send email
            </Link>
          ) : null}
          <Link to={`/inbox/message?channel=sms&contact=${contact.id}`} className="btn">
            Send SMS
          </Link>
          <Link to={`/inbox/message?channel=chat&contact=${contact.id}`} className="btn">
            Start chat
          </Link>
          <Form method="post">
            <input type="hidden" name="value" value={contact.isFavourite ? 'false' : 'true'} />
            <button type="submit" className="btn" name="intent" value="favourite" disabled={locked}>
              <Star aria-hidden="true" size={16} fill={contact.isFavourite ? 'currentColor' : 'none'} />
              {contact.isFavourite ? 'Unfavourite' : 'Favourite'}
            </button>
          </Form>
          <DeleteConfirm id={`contact-${contact.id}`} disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
          {canErase ? (
            <Link to={`/customers/${contact.id}/erase`} className="btn btn-danger">
              Erase personal data
            </Link>
          ) : null}
        </div>
      }
    >
      <div className="stack">
        <TagPills tags={contact.tags} />
        <Form method="post" {...getFormProps(form)} className="stack" aria-label="Contact details">
          <fieldset disabled={locked} className="stack">
            <div className="row">
              <Field label="First Name" field={fields.firstName} autoComplete="off" />
              <Field label="Last Name" field={fields.lastName} autoComplete="off" />
            </div>
            <div className="row">
              <Field label="Email" field={fields.email} type="email" autoComplete="off" />
              <Field label="Phone" field={fields.phone} type="tel" inputMode="numeric" />
            </div>
            <div className="row">
              <Field label="Title" field={fields.title} />
              <Field label="Website" field={fields.website} placeholder="https://example.com" />
            </div>
            <div className="row">
              <Field label="Company Name" field={fields.companyName} />
              <SelectField label="Owner" field={fields.assigneeId} options={userOptions} placeholder="Nobody" />
            </div>
            <h2>Address</h2>
            <div className="row">
              <SelectField label="Country" field={fields.country} options={COUNTRY_SELECT_OPTIONS} placeholder="Choose a country" />
              <Field label="Locality" field={fields.locality} />
            </div>
            <div className="row">
              <Field label="Street Address" field={fields.streetAddress} />
              <Field label="Postal Code" field={fields.postalCode} />
            </div>
            <fieldset>
              <legend>Tags</legend>
              {tagOptions.length === 0 ? <p className="muted">No tags yet.</p> : null}
              <div className="row">
                {tagOptions.map((t) => (
                  <label key={t.id} className="check">
                    <input type="checkbox" name={fields.tagIds.name} value={t.id} defaultChecked={chosenTags.has(String(t.id))} /> {t.name}
                  </label>
                ))}
              </div>
              <ErrorList id={fields.tagIds.errorId} errors={fields.tagIds.errors} />
            </fieldset>
          </fieldset>
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo="/customers" submitLabel="Update" intent="save" locked={locked} />
        </Form>

        <NotesSection formId={`contact-${contact.id}-note`} notes={contact.notes} locked={locked} prefs={user} lastResult={actionData?.form === 'note' ? actionData.reply : undefined} />

        <section className="stack" aria-label="Conversations">
          <h2>Conversations</h2>
          <p className="muted" data-testid="contact-time">
            Time logged: {formatHoursMinutes(time.seconds)} (billable {formatHoursMinutes(time.billableSeconds)})
          </p>
          {contact.conversations.length === 0 ? <p className="muted">No conversations yet.</p> : null}
          <ul data-testid="conversations">
            {contact.conversations.map((cv) => (
              <li key={cv.id}>
                <Link to={`/inbox/${cv.id}`}>{cv.subject || `Conversation #${cv.id}`}</Link> <span className="badge">{cv.status}</span>{' '}
                <small className="muted">{formatDateTime(cv.lastMessageAt, user)}</small>
              </li>
            ))}
          </ul>
        </section>

        {integrations ? <div data-testid="integration-panels" dangerouslySetInnerHTML={{ __html: integrations }} /> : null}

        <section className="stack" aria-label="Timeline">
          <h2>Timeline</h2>
          <ol data-testid="timeline">
            {contact.timeline.map((e) => (
              <li key={e.id}>
                <span>{timelineLabel(e.type, e.payload as Record<string, unknown>)}</span> <small className="muted">{formatDateTime(e.occurredAt, user)}</small>
              </li>
            ))}
          </ol>
        </section>
      </div>
    </SettingsPage>
  );
}

function timelineLabel(type: string, payload: Record<string, unknown>) {
  if (type === 'contact_updated' && payload.noteId) return 'Note added';
  if (type === 'contact_updated' && payload.tagAdded) return 'Tag added';
  if (type === 'contact_updated' && payload.tagRemoved) return 'Tag removed';
  if (type === 'contact_updated' && 'isFavourite' in payload) return payload.isFavourite ? 'Marked as favourite' : 'Removed from favourites';
  const words = type.replace(/_/g, ' ');
  return words[0].toUpperCase() + words.slice(1);
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData ? `${loaderData.contact.firstName} ${loaderData.contact.lastName}`.trim() || 'Contact' : 'Contact', 'CRM') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
