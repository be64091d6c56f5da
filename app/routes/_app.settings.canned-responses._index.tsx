import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
import { pageCannedResponses } from '~/models/productivity/canned-responses.server';
import { formatDate, pageTitle, truncate } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may read the account's canned responses; manage_canned_responses changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  const q = url.searchParams.get('q')?.trim() ?? '';
  const list = await pageCannedResponses({ accountId: ctx.account.id, q, page: readPage(url) });
  return {
    user: publicUser(ctx),
    q,
    list: { ...list, rows: list.rows.map((r) => ({ id: r.id, name: r.name, message: r.message, updatedAt: r.updatedAt })) },
    locked: !can(ctx, 'manage_canned_responses'),
  };
}

export default function CannedResponses() {
  const { user, q, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsList
      basePath="/settings/canned-responses"
      title="Canned Responses"
      subHeader="Saved replies that agents insert into a conversation in one click."
      createLabel="Create Canned Response"
      plural="canned responses"
      testId="canned-responses"
      locked={locked}
      q={q}
      list={list}
      columns={[
        { header: 'Name', cell: (r) => r.name },
        { header: 'Message', cell: (r) => truncate(r.message, 80) },
        { header: 'Updated', cell: (r) => formatDate(r.updatedAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Canned Responses', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
