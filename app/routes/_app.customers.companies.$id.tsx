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
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { CompanySchema } from '~/models/crm/companies.schemas';
import { createCompany, deleteCompanies, getCompany, setCompanyFavourite, updateCompany } from '~/models/crm/companies.server';
import { NoteSchema } from '~/models/crm/contacts.schemas';
import { COUNTRY_SELECT_OPTIONS } from '~/models/crm/countries';
import { addNote } from '~/models/crm/notes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { formatHoursMinutes } from '~/utils/duration';
import { formatPhone } from '~/utils/phone-format';
import { readEditorParam } from '~/utils/route-id';
import { can, publicUser, requirePermission, requireUser } from '~/utils/session.server';
import { timeTotals } from '~/models/time-tracking/time-entries.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/customers/companies';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const company = id === 'new' ? null : await getCompany({ accountId: ctx.account.id, id });
  if (company === undefined) throw new Response('Not Found', { status: 404 });
  const time = company ? await timeTotals({ accountId: ctx.account.id, companyId: company.id }) : null;
  // The phone is formatted here: libphonenumber's tables stay on the server (ADR 027).
  return { company, time, phone: formatPhone(company?.phone), locked: !can(ctx, 'manage_contacts'), user: publicUser(ctx) };
}

/** Intents: save (create or update), note, favourite, delete. */
export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  if (id !== 'new' && intent === 'delete') {
    if (!(await deleteCompanies({ ...who, ids: [id] }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Deleted' });
  }
  if (id !== 'new' && intent === 'favourite') {
    if (!(await setCompanyFavourite({ ...who, id, isFavourite: formData.get('value') === 'true' }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Updated' });
  }
  if (id !== 'new' && intent === 'note') {
    const submission = parseWithZod(formData, { schema: NoteSchema });
    if (submission.status !== 'success') return data({ form: 'note' as const, reply: submission.reply() }, { status: 400 });
    if (!(await addNote({ ...who, target: { companyId: id }, body: submission.value.body }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(`${LIST}/${id}`, 'Note Added');
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: CompanySchema });
  if (submission.status !== 'success') return data({ form: 'company' as const, reply: submission.reply() }, { status: 400 });
  const v = submission.value;
  const input = { ...v, address: { country: v.country, locality: v.locality, streetAddress: v.streetAddress, postalCode: v.postalCode } };
  if (id === 'new') {
    const row = await createCompany({ ...who, input });
    return redirectWithToast(`${LIST}/${row.id}`, 'Company Created');
  }
  if (!(await updateCompany({ ...who, id, input }))) throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Updated' });
}

export const handle = {
  breadcrumb: (loaderData: { company: { name: string } | null } | undefined) => (loaderData ? (loaderData.company?.name ?? 'New Company') : null),
};

export default function CompanyPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <CompanyEditor key={loaderData.company?.id ?? 'new'} {...loaderData} />;
}

function CompanyEditor({ company, time, phone, locked, user }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const tagOptions = useCrmTagOptions();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `company-${company?.id ?? 'new'}`,
    lastResult: actionData?.form === 'company' ? actionData.reply : undefined,
    defaultValue: company
      ? {
          name: company.name,
          domain: company.domain ?? '',
          url: company.url ?? '',
          description: company.description ?? '',
          phone,
          country: company.address.country ?? '',
          locality: company.address.locality ?? '',
          streetAddress: company.address.streetAddress ?? '',
          postalCode: company.address.postalCode ?? '',
          bindWithDomain: company.bindWithDomain ? 'on' : '',
          tagIds: company.tags.map((t) => String(t.id)),
        }
      : {},
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const chosenTags = new Set([fields.tagIds.initialValue ?? []].flat().map(String));
  return (
    <SettingsPage
      title={
        <>
          {company ? company.name : 'New Company'} {company?.isFavourite ? <span aria-label="Favourite">★</span> : null}
        </>
      }
      subHeader={company ? `${company.contactCount} contact${company.contactCount === 1 ? '' : 's'}` : 'A company groups contacts; bind it to its domain to link them automatically.'}
      locked={locked}
      actions={
        company ? (
          <div className="row">
            <Form method="post">
              <input type="hidden" name="value" value={company.isFavourite ? 'false' : 'true'} />
              <button type="submit" className="btn" name="intent" value="favourite" disabled={locked}>
                {company.isFavourite ? '★ Unfavourite' : '☆ Favourite'}
              </button>
            </Form>
            <DeleteConfirm id={`company-${company.id}`} disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
          </div>
        ) : null
      }
    >
      <div className="stack">
        {company ? <TagPills tags={company.tags} /> : null}
        <Form method="post" {...getFormProps(form)} className="stack" aria-label="Company details">
          <fieldset disabled={locked} className="stack">
            <Field label="Name" field={fields.name} autoComplete="off" />
            <div className="row">
              <Field label="Domain" field={fields.domain} placeholder="example.com" />
              <Field label="Url" field={fields.url} placeholder="https://example.com" />
            </div>
            <CheckboxField label="Bind contacts with this domain" field={fields.bindWithDomain} />
            <TextareaField label="Description" field={fields.description} rows={2} />
            <Field label="Phone" field={fields.phone} type="tel" inputMode="numeric" />
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
            </fieldset>
          </fieldset>
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={LIST} submitLabel={company ? 'Update' : 'Create'} intent="save" locked={locked} />
        </Form>

        {company ? (
          <>
            <section className="stack" aria-label="Contacts">
              <h2>Contacts</h2>
              {time ? (
                <p className="muted" data-testid="company-time">
                  Time logged: {formatHoursMinutes(time.seconds)} (billable {formatHoursMinutes(time.billableSeconds)})
                </p>
              ) : null}
              {company.contacts.length === 0 ? <p className="muted">No contacts yet.</p> : null}
              <ul data-testid="company-contacts">
                {company.contacts.map((c) => (
                  <li key={c.id}>
                    <Link to={`/customers/${c.id}`}>{`${c.firstName} ${c.lastName}`.trim() || c.email}</Link> <span className="muted">{c.email}</span>
                  </li>
                ))}
              </ul>
            </section>
            <NotesSection formId={`company-${company?.id ?? 'new'}-note`} notes={company.notes} locked={locked} prefs={user} lastResult={actionData?.form === 'note' ? actionData.reply : undefined} />
          </>
        ) : null}
      </div>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.company?.name ?? 'New Company', 'Companies', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
