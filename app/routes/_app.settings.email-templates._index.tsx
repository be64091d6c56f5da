import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { ListSearch } from '~/components/ui/list-search';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { pageEmailTemplates } from '~/models/productivity/email-templates.server';
import { formatDate, pageTitle, truncate } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may read the account's email templates; manage_email_templates changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  const q = url.searchParams.get('q')?.trim() ?? '';
  const list = await pageEmailTemplates({ accountId: ctx.account.id, q, page: readPage(url) });
  return {
    user: publicUser(ctx),
    q,
    list: { ...list, rows: list.rows.map((r) => ({ id: r.id, name: r.name, subject: r.subject, updatedAt: r.updatedAt })) },
    locked: !can(ctx, 'manage_email_templates'),
  };
}

export default function EmailTemplates() {
  const { user, q, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Email Templates"
      subHeader="Ready-made email replies for the inbox, personalised with the contact's details."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/email-templates/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Create Email Template
        </Link>
      }
    >
      <ListSearch q={q} label="Search email templates" action="/settings/email-templates" />
      {list.total === 0 ? (
        <p className="muted" data-testid="empty">
          {q ? 'No email templates match your search.' : 'No email templates yet.'}
        </p>
      ) : (
        <table className="table" data-testid="email-templates">
          <thead>
            <tr>
              <th>Name</th>
              <th>Subject</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link to={`/settings/email-templates/${r.id}`}>{r.name}</Link>
                </td>
                <td>{truncate(r.subject, 80)}</td>
                <td>{formatDate(r.updatedAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Email Templates', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
