import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { ListSearch } from '~/components/ui/list-search';
import { ListTable } from '~/components/ui/list-table';
import { readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { pageContactForms } from '~/models/productivity/contact-forms.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';

/** Everyone may see the account's contact forms; manage_contact_form changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  const q = url.searchParams.get('q')?.trim() ?? '';
  const list = await pageContactForms({ accountId: ctx.account.id, q, page: readPage(url) });
  return {
    user: publicUser(ctx),
    q,
    list: {
      ...list,
      rows: list.rows.map((r) => ({
        id: r.id,
        headerText: r.headerText,
        inboxName: r.inboxName,
        isActive: r.isActive,
        publicUrl: accountUrl(request, ctx.account.domain, `/contact/${r.code}`),
        createdAt: r.createdAt,
      })),
    },
    locked: !can(ctx, 'manage_contact_form'),
  };
}

export default function ContactForms() {
  const { user, q, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Contact Form"
      subHeader="A form on your website whose messages arrive in an inbox as conversations."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/contact-form/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Create Contact Form
        </Link>
      }
    >
      <ListSearch q={q} label="Search contact forms" action="/settings/contact-form" />
      <ListTable
        list={list}
        testId="contact-forms"
        empty={q ? 'No contact forms match your search.' : 'No contact forms yet.'}
        columns={[
          { header: 'Header', cell: (r) => <Link to={`/settings/contact-form/${r.id}`}>{r.headerText}</Link> },
          { header: 'Inbox', cell: (r) => r.inboxName },
          { header: 'Status', cell: (r) => (r.isActive ? <span className="pill pill-ok">Active</span> : <span className="pill pill-off">Inactive</span>) },
          {
            header: 'Public page',
            cell: (r) => (
              <a href={r.publicUrl} target="_blank" rel="noreferrer">
                Open
              </a>
            ),
          },
          { header: 'Created', cell: (r) => formatDate(r.createdAt, user) },
        ]}
      />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Contact Form', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
