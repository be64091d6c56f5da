import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
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
    <SettingsList
      basePath="/settings/trusted-domain"
      title="Trusted Domain"
      subHeader="Mail from these domains (and their subdomains) is marked as coming from a trusted domain in the inbox."
      createLabel="Add Trusted Domain"
      plural="trusted domains"
      testId="trusted-domains"
      locked={locked}
      list={list}
      columns={[
        { header: 'Domain Name', cell: (r) => r.domainName },
        { header: 'Domain URL', cell: (r) => r.domainUrl },
        { header: 'Created', cell: (r) => formatDate(r.createdAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Trusted Domain', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
