import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { listTrustedDomains } from '~/models/email/trusted-domains.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may see which domains are trusted; manage_trusted_domains changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const list = await listTrustedDomains({ accountId: ctx.account.id, page: readPage(new URL(request.url)) });
  return {
    user: publicUser(ctx),
    list: { ...list, rows: list.rows.map((r) => ({ id: r.id, domainName: r.domainName, domainUrl: r.domainUrl, createdAt: r.createdAt })) },
    locked: !can(ctx, 'manage_trusted_domains'),
  };
}

export default function TrustedDomains() {
  const { user, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Trusted Domain"
      subHeader="Mail from these domains (and their subdomains) is marked as coming from a trusted domain in the inbox."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/trusted-domain/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Add Trusted Domain
        </Link>
      }
    >
      {list.total === 0 ? (
        <p className="muted" data-testid="empty">
          No trusted domains yet.
        </p>
      ) : (
        <table className="table" data-testid="trusted-domains">
          <thead>
            <tr>
              <th>Domain Name</th>
              <th>Domain URL</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link to={`/settings/trusted-domain/${r.id}`}>{r.domainName}</Link>
                </td>
                <td>{r.domainUrl}</td>
                <td>{formatDate(r.createdAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Trusted Domain', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
