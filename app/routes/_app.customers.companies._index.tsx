import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { CompanyTable } from '~/components/crm/company-table';
import { useCrmTagOptions } from '~/components/crm/use-crm-tag-options';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { listCompanies } from '~/models/crm/companies.server';
import { handleListAction, readCompanyFilters } from '~/models/crm/contacts-screen.server';
import { pageTitle } from '~/utils/format';
import { can, requirePermission, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const filters = readCompanyFilters(new URL(request.url));
  const list = await listCompanies({ accountId: ctx.account.id, filters });
  return { filters: { q: filters.q, tag: filters.tag }, list, locked: !can(ctx, 'manage_contacts') };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  const form = await request.formData();
  const result = await handleListAction(request, ctx, form, 'company');
  if (result) return result;
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = { breadcrumb: 'Companies' };

export default function Companies() {
  const { filters, list, locked } = useLoaderData<typeof loader>();
  const tagOptions = useCrmTagOptions();
  const actionData = useActionData<typeof action>();
  return (
    <section className="stack">
      <header className="row">
        <h1>Companies</h1>
        <span className="muted">{list.total}</span>
        <div className="spacer" />
        {locked ? (
          <span className="btn" aria-disabled="true">
            <DeniedBadge kind="role" /> New Company
          </span>
        ) : (
          <Link to="/customers/companies/new" className="btn btn-primary">
            New Company
          </Link>
        )}
      </header>
      <CompanyTable
        action="/customers/companies"
        postAction="/customers/companies?index"
        filters={filters}
        tagOptions={tagOptions}
        list={list}
        locked={locked}
        formError={actionData?.formError}
      />
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Companies', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
