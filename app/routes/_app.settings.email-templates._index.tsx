import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
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
    <SettingsList
      basePath="/settings/email-templates"
      title="Email Templates"
      subHeader="Ready-made email replies for the inbox, personalised with the contact's details."
      createLabel="Create Email Template"
      plural="email templates"
      testId="email-templates"
      locked={locked}
      q={q}
      list={list}
      columns={[
        { header: 'Name', cell: (r) => r.name },
        { header: 'Subject', cell: (r) => truncate(r.subject, 80) },
        { header: 'Updated', cell: (r) => formatDate(r.updatedAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Email Templates', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
