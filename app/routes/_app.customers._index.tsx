import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { ContactTable } from '~/components/crm/contact-table';
import { useCrmTagOptions } from '~/components/crm/use-crm-tag-options';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { listContacts } from '~/models/crm/contacts.server';
import { handleListAction, readContactFilters } from '~/models/crm/contacts-screen.server';
import { pageTitle } from '~/utils/format';
import { can, publicUser, requirePermission, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const filters = readContactFilters(new URL(request.url));
  const list = await listContacts({ accountId: ctx.account.id, filters });
  return {
    filters: { q: filters.q, tag: filters.tag },
    list,
    locked: !can(ctx, 'manage_contacts'),
    canImport: can(ctx, 'import_contacts'),
    canExport: can(ctx, 'export_contacts'),
    user: publicUser(ctx),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  const form = await request.formData();
  const result = await handleListAction(request, ctx, form, 'contact');
  if (result) return result;
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = { breadcrumb: 'Contacts' };

export default function Contacts() {
  const { filters, list, locked, canImport, canExport, user } = useLoaderData<typeof loader>();
  const tagOptions = useCrmTagOptions();
  const actionData = useActionData<typeof action>();
  const exportQuery = new URLSearchParams({ ...(filters.q ? { q: filters.q } : {}), ...(filters.tag ? { tag: String(filters.tag) } : {}) }).toString();
  return (
    <section className="stack">
      <header className="row">
        <h1>Contacts</h1>
        <span className="muted">{list.totalCapped ? `${list.total.toLocaleString('en')}+` : list.total.toLocaleString('en')}</span>
        <div className="spacer" />
        {canImport ? (
          <Link to="/customers/import" className="btn">
            Import
          </Link>
        ) : null}
        {canExport ? (
          // A streamed CSV download: a plain link, not a client-side navigation.
          <a href={`/customers/export${exportQuery ? `?${exportQuery}` : ''}`} className="btn" download>
            Export
          </a>
        ) : null}
        {locked ? (
          <span className="btn" aria-disabled="true">
            <DeniedBadge kind="role" /> New Contact
          </span>
        ) : (
          <Link to="/customers/new" className="btn btn-primary">
            New Contact
          </Link>
        )}
      </header>
      <ContactTable action="/customers" postAction="/customers?index" filters={filters} tagOptions={tagOptions} list={list} locked={locked} prefs={user} formError={actionData?.formError} />
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Contacts', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
